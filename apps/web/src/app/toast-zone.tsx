import { useEffect } from 'react';

/** Class of the toast containers (one per position; the app uses bottom-center). */
export const TOAST_CLASS = 'cc-toasts';
/** Space between the toast stack and a modal above it, px. */
const GAP = 8;

/**
 * Keeps `--cc-toast-zone` on the page root at the height the toast stack takes from the bottom of the window (0
 * with no toast). Modals leave that much room at the bottom (app.css), so a toast never covers a modal's title,
 * inputs or buttons, however many toasts there are and however tall the modal is.
 */
export function ToastZone() {
  useEffect(() => {
    const root = document.documentElement;
    // Rendered in place (not in a portal), the container exists once the providers have mounted.
    const container = document.querySelector(`.${TOAST_CLASS}[data-position="bottom-center"]`);
    const update = () => {
      const rect = container?.getBoundingClientRect();
      const zone = rect && rect.height > 0 ? Math.ceil(window.innerHeight - rect.top + GAP) : 0;
      root.style.setProperty('--cc-toast-zone', `${zone}px`);
    };
    const resize = typeof ResizeObserver === 'undefined' ? null : new ResizeObserver(update);
    if (container) resize?.observe(container);
    window.addEventListener('resize', update);
    update();
    return () => {
      resize?.disconnect();
      window.removeEventListener('resize', update);
      root.style.removeProperty('--cc-toast-zone');
    };
  }, []);
  return null;
}
