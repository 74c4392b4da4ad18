import DOMPurify from 'dompurify';
import type { Config } from 'dompurify';
import { REMOTE_ALT_ATTR, REMOTE_IMAGE_ATTR } from './remote-images';

/**
 * Model output reaches the DOM only through this sanitiser (ARCHITECTURE §9). Scripts, event handlers, forms,
 * frames and `javascript:` URLs are removed; inline styles survive only inside KaTeX output; links open in a new
 * tab without an opener; `sandbox:` links (code interpreter files) become `#` links marked with their path.
 * Images load by themselves only from the product's own file routes, `data:image/` and same-origin `blob:` URLs;
 * any other image (markdown or raw HTML) becomes a placeholder button naming its host (see `remoteImageHost`).
 */
const CONFIG: Config = {
  USE_PROFILES: { html: true, mathMl: true },
  FORBID_TAGS: [
    'style',
    'form',
    'input',
    'textarea',
    'select',
    'option',
    'iframe',
    'frame',
    'object',
    'embed',
    'base',
    'link',
    'meta',
    // Media fetch their src or poster by themselves; model output has no use for them.
    'video',
    'audio',
    'source',
    'track',
    'picture',
  ],
  FORBID_ATTR: ['srcset', 'action', 'formaction', 'autofocus', 'background', 'poster', 'ping'],
  ADD_ATTR: ['target'],
  ALLOW_DATA_ATTR: true,
  SANITIZE_NAMED_PROPS: true,
  ALLOWED_URI_REGEXP: /^(?:(?:https?|mailto|tel|sandbox):|[^a-z]|[a-z+.-]+(?:[^a-z+.\-:]|$))/i,
};

/** The product's own file routes (uploads, upstream files relayed by the server, code-interpreter downloads). */
const OWN_IMAGE_PATH = /^\/api\/(?:files\/|conv\/[^/]+\/interpreter\/download$)/;

/**
 * The host an image would be fetched from when it may not load by itself, or null when it may: a URL from model
 * output must not make the browser contact another host just by being viewed (the URL can carry conversation
 * text to whoever runs that host). The product's own file routes, `data:image/` and same-origin `blob:` load.
 */
export function remoteImageHost(src: string, base: string = window.location.href): string | null {
  const trimmed = src.trim();
  if (/^data:image\//i.test(trimmed)) return null;
  let url: URL;
  try {
    url = new URL(trimmed, base);
  } catch {
    return '?';
  }
  const origin = new URL(base).origin;
  if (url.protocol === 'blob:') return url.origin === origin ? null : url.host || '?';
  if (url.origin === origin && OWN_IMAGE_PATH.test(url.pathname)) return null;
  return url.host || '?';
}

/** The placeholder label of the current sanitize call, `{host}` standing for the image's host. */
let remoteImageLabel = '{host}';

function replaceRemoteImage(element: Element): void {
  const src = element.getAttribute('src');
  if (src === null) return;
  const host = remoteImageHost(src);
  if (host === null) return;
  const button = element.ownerDocument.createElement('button');
  button.setAttribute('type', 'button');
  button.setAttribute('class', 'cc-remote-image');
  button.setAttribute(REMOTE_IMAGE_ATTR, src);
  const alt = element.getAttribute('alt');
  if (alt) button.setAttribute(REMOTE_ALT_ATTR, alt);
  button.textContent = remoteImageLabel.replace('{host}', host);
  element.replaceWith(button);
}

/** CSS that can make the browser fetch a resource, or a backslash escape that could spell it. */
const STYLE_FETCH = /\\|@import|(?:url|image|image-set|cross-fade|src|element|expression)\s*\(/i;

let hooked = false;

/**
 * Sets the configuration (once: parsed on every call otherwise — its allow-lists rebuilt for each block a
 * streaming answer renders) and the hooks.
 */
function installHooks(): void {
  if (hooked) return;
  hooked = true;
  DOMPurify.setConfig({ ...CONFIG, RETURN_TRUSTED_TYPE: false });
  DOMPurify.addHook('uponSanitizeAttribute', (node, data) => {
    // A same-origin blob: image (the page's own object URL) is kept; the URL pattern refuses other blob: URLs.
    if (node.nodeName === 'IMG' && data.attrName === 'src' && data.attrValue.startsWith('blob:')) {
      data.forceKeepAttr = remoteImageHost(data.attrValue) === null;
      if (!data.forceKeepAttr) data.keepAttr = false;
      return;
    }
    if (data.attrName === 'style') {
      const element = node;
      const inKatex =
        (typeof element.closest === 'function' && element.closest('.katex, .katex-display') !== null) ||
        element.classList?.contains('katex');
      // KaTeX styles are lengths and offsets; a class can be typed in raw HTML, so a style that could fetch
      // something (url(), image-set(), escapes that could spell them) is dropped even inside `.katex`.
      if (!inKatex || STYLE_FETCH.test(data.attrValue)) data.keepAttr = false;
    }
  });
  DOMPurify.addHook('afterSanitizeAttributes', (node) => {
    if (node.nodeName === 'IMG') return replaceRemoteImage(node);
    if (node.nodeName !== 'A') return;
    const element = node;
    const href = element.getAttribute('href') ?? '';
    if (href.toLowerCase().startsWith('sandbox:')) {
      // A same-page link the message view turns into a server download (keyboard-focusable, opens nothing itself).
      element.setAttribute('href', '#');
      element.setAttribute('data-sandbox-path', href.slice('sandbox:'.length));
      element.removeAttribute('target');
      element.setAttribute('class', 'cc-sandbox-link');
      return;
    }
    if (href && !href.startsWith('#')) {
      element.setAttribute('target', '_blank');
      element.setAttribute('rel', 'noopener noreferrer nofollow');
    } else {
      element.removeAttribute('target');
    }
  });
}

export interface SanitizeOptions {
  /** Text of a remote image's placeholder button, `{host}` standing for the image's host. */
  remoteImageLabel: string;
}

export function sanitizeHtml(
  html: string,
  options: SanitizeOptions = { remoteImageLabel: '{host}' },
): string {
  installHooks();
  // The hooks are global and synchronous: the label holds for exactly this call.
  remoteImageLabel = options.remoteImageLabel;
  return DOMPurify.sanitize(html);
}
