/**
 * Images from other hosts in model output are placeholders (see sanitize.ts) until the reader asks for them. This
 * half lives outside the lazily loaded engine: the message view swaps a placeholder for its image on click.
 */

/** Attribute of a placeholder button holding the image's URL. */
export const REMOTE_IMAGE_ATTR = 'data-remote-image';
/** Attribute of a placeholder button holding the image's alt text. */
export const REMOTE_ALT_ATTR = 'data-remote-alt';

/** Replaces a placeholder button with the image it stands for (http and https URLs only). */
export function showRemoteImage(button: Element): void {
  let url: URL;
  try {
    url = new URL(button.getAttribute(REMOTE_IMAGE_ATTR) ?? '', window.location.href);
  } catch {
    return;
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return;
  const image = button.ownerDocument.createElement('img');
  image.src = url.href;
  image.alt = button.getAttribute(REMOTE_ALT_ATTR) ?? '';
  image.referrerPolicy = 'no-referrer';
  const hadFocus = button.ownerDocument.activeElement === button;
  button.replaceWith(image);
  if (hadFocus) {
    // Keyboard users stay where they were instead of falling back to the top of the page.
    image.tabIndex = -1;
    image.focus();
  }
}

/** Shows again, after a block re-rendered, the images the reader already loaded in this view. */
export function showLoadedImages(root: Element | null, loaded: ReadonlySet<string>): void {
  if (!root || loaded.size === 0) return;
  for (const button of root.querySelectorAll(`button[${REMOTE_IMAGE_ATTR}]`)) {
    if (loaded.has(button.getAttribute(REMOTE_IMAGE_ATTR) ?? '')) showRemoteImage(button);
  }
}
