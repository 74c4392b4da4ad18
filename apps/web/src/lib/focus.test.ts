import { afterEach, describe, expect, it } from 'vitest';
import { focusAfterRemoval, fromMenu, openMenuButton, returnFocusTo } from './focus';

/** A list of rows, each with its actions button (a menu's target, as Mantine marks it). */
function list(...names: string[]): HTMLElement {
  const nav = document.createElement('nav');
  nav.innerHTML = names
    .map(
      (name) =>
        `<li><button>${name}</button><button aria-haspopup="menu" aria-expanded="false" aria-label="Actions for ${name}"></button></li>`,
    )
    .join('');
  document.body.append(nav);
  return nav;
}
const actions = (name: string) => document.querySelector<HTMLElement>(`[aria-label="Actions for ${name}"]`)!;
const focused = () => document.activeElement?.getAttribute('aria-label') ?? document.activeElement?.tagName;

afterEach(() => {
  document.body.innerHTML = '';
});

describe('fromMenu', () => {
  it('focuses the button of the open menu before the action (a dialog then gives the focus back to it)', () => {
    list('a', 'b');
    actions('b').setAttribute('aria-expanded', 'true');
    const item = document.createElement('button');
    document.body.append(item);
    item.focus();
    let focusedInAction: string | undefined;
    fromMenu((n: number) => {
      focusedInAction = `${focused()} ${n}`;
    })(7);
    expect(focusedInAction).toBe('Actions for b 7');
  });

  it('leaves the focus alone when no menu is open', () => {
    list('a');
    expect(openMenuButton()).toBeNull();
    actions('a').focus();
    fromMenu(() => undefined)();
    expect(focused()).toBe('Actions for a');
  });
});

describe('focusAfterRemoval', () => {
  it('moves the focus to the next row’s actions once the row is gone, else the row before’s', () => {
    list('a', 'b', 'c');
    let refocus = focusAfterRemoval(actions('b'), 'nav');
    actions('b').closest('li')!.remove();
    refocus();
    expect(focused()).toBe('Actions for c');

    refocus = focusAfterRemoval(actions('c'), 'nav');
    actions('c').closest('li')!.remove();
    refocus();
    expect(focused()).toBe('Actions for a');
  });

  it('does nothing for the last row, or without a row', () => {
    list('a');
    document.body.focus();
    const refocus = focusAfterRemoval(actions('a'), 'nav');
    actions('a').closest('li')!.remove();
    refocus();
    expect(focused()).toBe('BODY');
    expect(() => focusAfterRemoval(null, 'nav')()).not.toThrow();
  });
});

describe('returnFocusTo', () => {
  it("turns off the dialog's own return and focuses the opener on close, before what comes next", () => {
    list('a', 'b');
    const order: string[] = [];
    const props = returnFocusTo(actions('a'), () => order.push(`then: ${focused()}`));
    expect(props.returnFocus).toBe(false);
    actions('b').focus();
    props.onClose();
    expect(focused()).toBe('Actions for a');
    expect(order).toEqual(['then: Actions for a']);
  });

  it('does nothing but go on when there was no opener', () => {
    let ran = false;
    returnFocusTo(null, () => (ran = true)).onClose();
    expect(ran).toBe(true);
  });
});
