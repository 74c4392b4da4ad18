import DOMPurify from 'dompurify';
import type { Config } from 'dompurify';

/**
 * Model output reaches the DOM only through this sanitiser (ARCHITECTURE §9). Scripts, event handlers, forms,
 * frames and `javascript:` URLs are removed; inline styles survive only inside KaTeX output; links open in a new
 * tab without an opener; `sandbox:` links (code interpreter files) become `#` links marked with their path.
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
  ],
  FORBID_ATTR: ['srcset', 'action', 'formaction', 'autofocus'],
  ADD_ATTR: ['target'],
  ALLOW_DATA_ATTR: true,
  SANITIZE_NAMED_PROPS: true,
  ALLOWED_URI_REGEXP: /^(?:(?:https?|mailto|tel|sandbox):|[^a-z]|[a-z+.-]+(?:[^a-z+.\-:]|$))/i,
};

let hooked = false;

function installHooks(): void {
  if (hooked) return;
  hooked = true;
  DOMPurify.addHook('uponSanitizeAttribute', (node, data) => {
    if (data.attrName === 'style') {
      const element = node;
      const inKatex =
        (typeof element.closest === 'function' && element.closest('.katex, .katex-display') !== null) ||
        element.classList?.contains('katex');
      if (!inKatex) data.keepAttr = false;
    }
  });
  DOMPurify.addHook('afterSanitizeAttributes', (node) => {
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

export function sanitizeHtml(html: string): string {
  installHooks();
  return DOMPurify.sanitize(html, { ...CONFIG, RETURN_TRUSTED_TYPE: false });
}
