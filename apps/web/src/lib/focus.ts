/** The button whose menu is open (Mantine marks it `aria-expanded`), if any. */
export function openMenuButton(): HTMLElement | null {
  return document.querySelector<HTMLElement>('[aria-haspopup="menu"][aria-expanded="true"]');
}

/**
 * A menu item's action that opens a dialog: the menu's button takes the focus first, so that the dialog gives it
 * back there when it closes (the item that was focused is gone by then, and focus would fall to the page).
 */
export function fromMenu<A extends unknown[]>(action: (...args: A) => void): (...args: A) => void {
  return (...args) => {
    openMenuButton()?.focus();
    action(...args);
  };
}

/**
 * Where the focus goes once the row holding `control` (its actions menu's button) is removed — a deleted item: the
 * same button of the row after it within `scope` (the list or table), else of the row before. Worked out now, while
 * the row is there; the returned function moves the focus, once the removal is done.
 */
export function focusAfterRemoval(control: HTMLElement | null, scope: string): () => void {
  const buttons = Array.from(
    control?.closest(scope)?.querySelectorAll<HTMLElement>('[aria-haspopup="menu"]') ?? [],
  );
  const at = control ? buttons.indexOf(control) : -1;
  const candidates = at < 0 ? [] : [buttons[at + 1], buttons[at - 1]];
  return () => candidates.find((button) => button?.isConnected)?.focus();
}

/**
 * A dialog's props that give the focus back to `opener` as soon as it closes (Mantine's own return comes a moment
 * later, and could undo a move made meanwhile, as `focusAfterRemoval`'s after a delete); `then` runs after.
 */
export function returnFocusTo(
  opener: HTMLElement | null,
  then?: () => void,
): { returnFocus: false; onClose: () => void } {
  return {
    returnFocus: false,
    onClose: () => {
      opener?.focus();
      then?.();
    },
  };
}

/**
 * Where the keyboard goes once what held the focus is gone (and the skip link's target): the message box on the chat
 * page, when it is shown and enabled, else the main content. Returns the element focused.
 */
export function focusMainContent(): HTMLElement | null {
  const input = document.querySelector<HTMLTextAreaElement>('[data-testid="chat-input"]');
  if (input && !input.disabled) {
    input.focus();
    return input;
  }
  const main = document.getElementById('app-main');
  main?.focus();
  return main;
}
