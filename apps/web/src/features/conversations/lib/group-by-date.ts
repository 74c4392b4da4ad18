import type { ConversationRead } from '@cc/contracts';

/** A section of the conversation list. `month` groups are older than 30 days, one per calendar month. */
export type ConversationGroupKey =
  | { kind: 'pinned' }
  | { kind: 'today' }
  | { kind: 'yesterday' }
  | { kind: 'previous7' }
  | { kind: 'previous30' }
  | { kind: 'month'; year: number; month: number };

export interface ConversationGroup {
  /** Stable id of the section (`pinned`, `today`, …, `2026-03`). */
  id: string;
  key: ConversationGroupKey;
  items: ConversationRead[];
}

/** Midnight `days` calendar days before `now`'s day, in the browser's zone (DST-safe: built from parts). */
function startOfDay(now: Date, days = 0): number {
  return new Date(now.getFullYear(), now.getMonth(), now.getDate() - days).getTime();
}

/**
 * Sections of the list in the browser's local time: pinned ones first (in the order given), then by last update
 * into Today, Yesterday, Previous 7 days, Previous 30 days, then one section per older month, newest first. Items
 * keep their order within a section; empty sections are left out. A time in the future (a clock ahead of this
 * one) counts as today.
 */
export function groupConversations(
  list: readonly ConversationRead[],
  /** Now: injected so tests need no real clock. */
  now: Date,
): ConversationGroup[] {
  const today = startOfDay(now);
  const yesterday = startOfDay(now, 1);
  const week = startOfDay(now, 7);
  const month = startOfDay(now, 30);
  const groups = new Map<string, ConversationGroup>();
  const add = (id: string, key: ConversationGroupKey, item: ConversationRead) => {
    const group = groups.get(id) ?? { id, key, items: [] };
    group.items.push(item);
    groups.set(id, group);
  };
  for (const item of list) {
    if (item.pinned_at !== null) {
      add('pinned', { kind: 'pinned' }, item);
      continue;
    }
    const time = Date.parse(item.update_time || item.create_time);
    if (Number.isNaN(time) || time >= today) add('today', { kind: 'today' }, item);
    else if (time >= yesterday) add('yesterday', { kind: 'yesterday' }, item);
    else if (time >= week) add('previous7', { kind: 'previous7' }, item);
    else if (time >= month) add('previous30', { kind: 'previous30' }, item);
    else {
      const d = new Date(time);
      const id = `${d.getFullYear()}-${String(d.getMonth() + 1).padStart(2, '0')}`;
      add(id, { kind: 'month', year: d.getFullYear(), month: d.getMonth() }, item);
    }
  }
  const order = ['pinned', 'today', 'yesterday', 'previous7', 'previous30'];
  return [...groups.values()].sort((a, b) => {
    const ia = order.indexOf(a.id);
    const ib = order.indexOf(b.id);
    if (ia >= 0 || ib >= 0) return (ia < 0 ? order.length : ia) - (ib < 0 ? order.length : ib);
    return b.id.localeCompare(a.id);
  });
}
