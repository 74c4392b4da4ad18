import { afterEach, describe, expect, it } from 'vitest';
import type { ConversationRead } from '@cc/contracts';
import { groupConversations } from './group-by-date';

let seq = 0;
function conv(update_time: string, pinned_at: string | null = null): ConversationRead {
  seq += 1;
  return {
    id: seq,
    source: 'openai_api',
    conversation_id: `00000000-0000-4000-8000-${String(seq).padStart(12, '0')}`,
    title: `c${seq}`,
    user_id: 1,
    is_valid: true,
    is_public: false,
    current_model: 'gpt_4',
    create_time: update_time,
    update_time,
    pinned_at,
  };
}

const zone = process.env.TZ;
afterEach(() => {
  process.env.TZ = zone;
});

/** Local wall-clock time as an ISO (UTC) string, as the server would send it. */
const local = (y: number, m: number, d: number, h = 12, min = 0) =>
  new Date(y, m - 1, d, h, min).toISOString();

describe('groupConversations', () => {
  it('puts pinned first, then today, yesterday, previous 7 and 30 days, then one section per older month', () => {
    process.env.TZ = 'Europe/Berlin';
    const now = new Date(2026, 2, 15, 9, 30); // 15 March 2026, 09:30 local
    const list = [
      conv(local(2026, 3, 15, 0, 1)),
      conv(local(2026, 3, 14, 23, 59)),
      conv(local(2026, 3, 14, 0, 0)),
      conv(local(2026, 3, 13, 23, 0)),
      conv(local(2026, 3, 8, 0, 0)),
      conv(local(2026, 3, 7, 23, 59)),
      conv(local(2026, 2, 13, 0, 0)),
      conv(local(2026, 2, 12, 23, 0)),
      conv(local(2026, 2, 1)),
      conv(local(2025, 12, 24)),
      conv(local(2025, 3, 20), local(2026, 3, 1)),
    ];
    const groups = groupConversations(list, now);
    expect(groups.map((g) => [g.id, g.items.map((c) => c.title)])).toEqual([
      ['pinned', ['c11']],
      ['today', ['c1']],
      ['yesterday', ['c2', 'c3']],
      ['previous7', ['c4', 'c5']],
      ['previous30', ['c6', 'c7']],
      ['2026-02', ['c8', 'c9']],
      ['2025-12', ['c10']],
    ]);
    expect(groups[5]?.key).toEqual({ kind: 'month', year: 2026, month: 1 });
  });

  it('decides the day in the browser’s zone, across a daylight-saving change', () => {
    const at = '2026-03-28T23:30:00.000Z';
    process.env.TZ = 'Asia/Shanghai'; // 29 March 07:30 there
    expect(groupConversations([conv(at)], new Date('2026-03-29T04:00:00.000Z'))[0]?.id).toBe('today');
    process.env.TZ = 'America/New_York'; // 28 March 19:30 there, now 29 March 00:00
    expect(groupConversations([conv(at)], new Date('2026-03-29T04:00:00.000Z'))[0]?.id).toBe('yesterday');
    // Berlin moves its clocks forward on 29 March: a day of 23 hours still ends at local midnight.
    process.env.TZ = 'Europe/Berlin';
    const now = new Date(2026, 2, 30, 0, 30);
    const list = [conv(local(2026, 3, 29, 0, 30)), conv(local(2026, 3, 28, 23, 30))];
    expect(groupConversations(list, now).map((g) => g.id)).toEqual(['yesterday', 'previous7']);
  });

  it('counts a time ahead of this clock as today and leaves out empty sections', () => {
    const now = new Date(2026, 5, 1, 12);
    expect(groupConversations([conv(local(2026, 6, 2))], now).map((g) => g.id)).toEqual(['today']);
    expect(groupConversations([], now)).toEqual([]);
  });
});
