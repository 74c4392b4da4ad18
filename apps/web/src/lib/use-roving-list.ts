import { useCallback, useId, useMemo, useState } from 'react';
import type { FocusEvent, KeyboardEvent } from 'react';
import { useLatest } from './use-latest';

/*
 * A list that is one Tab stop (WAI-ARIA roving tabindex). Marked in the DOM: each item holds a row (the element that
 * takes the focus, `rovingRowProps`) and at most one action button (`ROVING_ACTION_PROPS`), reached from its row.
 */
const ITEM = 'data-roving-item';
const ROW = 'data-roving-row';
const ACTION = 'data-roving-action';

/** On the element that holds a row and its action (the list item). */
export const ROVING_ITEM_PROPS = { [ITEM]: '' } as const;
/** On a row's action button: out of the Tab order, reached with ArrowRight from its row. */
export const ROVING_ACTION_PROPS = { [ACTION]: '', tabIndex: -1 } as const;

/** The keys every row answers to (announced with it: `aria-keyshortcuts`). */
const ROW_KEYS = 'ArrowUp ArrowDown Home End';
/** And those of a row with an action button; with a menu button, also the keys that open its menu. */
const ACTION_KEYS = `${ROW_KEYS} ArrowRight`;
const MENU_KEYS = `${ACTION_KEYS} Shift+F10 ContextMenu`;

/** The props of a row: its id, whether it is the list's Tab stop, and what its action button is. */
export function rovingRowProps(
  id: string,
  tabStop: boolean,
  hintId: string,
  action: 'none' | 'button' | 'menu' = 'none',
) {
  return {
    [ROW]: id,
    tabIndex: tabStop ? 0 : -1,
    'aria-keyshortcuts': action === 'menu' ? MENU_KEYS : action === 'button' ? ACTION_KEYS : ROW_KEYS,
    'aria-describedby': hintId,
  };
}

/** The row and the action button of the item holding `el`. */
function itemParts(el: Element): { row: HTMLElement | null; action: HTMLElement | null } {
  const item = el.closest(`[${ITEM}]`);
  return {
    row: item?.querySelector<HTMLElement>(`[${ROW}]`) ?? null,
    action: item?.querySelector<HTMLElement>(`[${ACTION}]`) ?? null,
  };
}

/**
 * ArrowUp / ArrowDown / Home / End move between the rows, Enter is the row's click; ArrowRight goes to the row's
 * action button and ArrowLeft back; Shift+F10 or the ContextMenu key opens the row's menu (an action that is a menu
 * button only: a plain button, such as a remove button, is not pressed by a menu key). Past the last row, ArrowDown
 * calls `onPastEnd` (the next page loads).
 */
function handleKeyDown(e: KeyboardEvent<HTMLElement>, onPastEnd: (() => void) | undefined): void {
  const target = e.target as HTMLElement;
  if (e.altKey || e.ctrlKey || e.metaKey) return;
  const { row, action } = itemParts(target);
  if (!row || (target !== row && target !== action)) return;
  const rows = Array.from(e.currentTarget.querySelectorAll<HTMLElement>(`[${ROW}]`));
  const at = rows.indexOf(row);
  const moveTo = (next: HTMLElement | undefined) => {
    e.preventDefault();
    if (!next) return;
    next.focus();
    next.scrollIntoView({ block: 'nearest' });
  };
  const menuKey = e.key === 'ContextMenu' || (e.key === 'F10' && e.shiftKey);
  if (e.shiftKey && !menuKey) return;
  switch (e.key) {
    case 'ArrowDown':
      if (at === rows.length - 1) onPastEnd?.();
      return moveTo(rows[at + 1] ?? (target === action ? row : undefined));
    case 'ArrowUp':
      return moveTo(rows[at - 1] ?? (target === action ? row : undefined));
    case 'Home':
      return moveTo(rows[0]);
    case 'End':
      return moveTo(rows[rows.length - 1]);
    case 'ArrowRight':
      if (target === row && action) moveTo(action);
      return;
    case 'ArrowLeft':
      if (target === action) moveTo(row);
      return;
    default:
      if (menuKey && action?.getAttribute('aria-haspopup') === 'menu') {
        e.preventDefault();
        action.focus();
        action.click();
      }
  }
}

export interface RovingListOptions {
  /** The rows' ids, in order. */
  ids: readonly string[];
  /** The row the Tab stop is on when none was focused yet (the open one); else the first. */
  currentId?: string | null;
  /** ArrowDown on the last row (load the next page). */
  onPastEnd?: () => void;
}

/**
 * One Tab stop for a list: the row last focused while it is listed, else the current one, else the first.
 * `listProps` go on an element around the rows; each row takes `rovingRowProps` with `tabStopId` and `hintId` (the id
 * of a visually hidden text saying which keys do what, rendered by the list).
 */
export function useRovingList({ ids, currentId = null, onPastEnd }: RovingListOptions) {
  const hintId = `${useId()}-keys`;
  const [focusedId, setFocusedId] = useState<string | null>(null);
  const tabStopId = useMemo(() => {
    const listed = new Set(ids);
    if (focusedId !== null && listed.has(focusedId)) return focusedId;
    if (currentId !== null && listed.has(currentId)) return currentId;
    return ids[0] ?? null;
  }, [ids, focusedId, currentId]);
  const pastEnd = useLatest(onPastEnd);
  const onKeyDown = useCallback(
    (e: KeyboardEvent<HTMLElement>) => handleKeyDown(e, pastEnd.current),
    [pastEnd],
  );
  const onFocus = useCallback((e: FocusEvent<HTMLElement>) => {
    const id = itemParts(e.target).row?.getAttribute(ROW);
    if (id) setFocusedId(id);
  }, []);
  const listProps = useMemo(() => ({ onKeyDown, onFocus }), [onKeyDown, onFocus]);
  return { tabStopId, hintId, listProps };
}
