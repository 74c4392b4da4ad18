import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import type { Transactional } from '../repositories/executor';
import { createTestApp } from '../test/harness';
import type { TestApp } from '../test/harness';
import { ACTIVITY_FLUSH_MS, ActivityWriter } from './activity-writer';

let t: TestApp;

beforeAll(async () => {
  t = await createTestApp();
});
afterAll(() => t.close());
afterEach(() => vi.useRealTimers());

/** The test app's database, counting the transactions run through it. */
function countingDb() {
  const db = t.ctx.dbHandle.db;
  const counted = { transactions: 0, transaction: () => (counted.transactions++, db.transaction()) };
  return counted;
}

async function lastActive(id: number): Promise<string | null> {
  const row = await t.ctx.dbHandle.db
    .selectFrom('users')
    .select('last_active_time')
    .where('id', '=', id)
    .executeTakeFirstOrThrow();
  return row.last_active_time;
}

const log = { warn: vi.fn() };
const at = (iso: string) => ({ at: iso, stale: new Date(Date.parse(iso) - 60_000).toISOString() });

describe('activity writer', () => {
  it("writes the marks of a second together, in one transaction; until then they are this instance's own", async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    const db = countingDb();
    const writer = new ActivityWriter(db, log);
    const users = await Promise.all([t.createUser(), t.createUser(), t.createUser()]);
    const now = at('2026-11-28T10:00:00.000Z');
    for (const u of users) writer.mark(u.row.id, now.at, now.stale);
    // A later mark of the same user replaces its first: one row each.
    const later = at('2026-11-28T10:00:00.500Z');
    writer.mark(users[0].row.id, later.at, later.stale);
    expect(await lastActive(users[0].row.id)).toBeNull();
    expect(writer.pending(users[0].row.id)).toBe(later.at);
    const row = { id: users[1].row.id, last_active_time: null };
    writer.apply(row);
    expect(row.last_active_time).toBe(now.at);

    await vi.advanceTimersByTimeAsync(ACTIVITY_FLUSH_MS - 1);
    expect(db.transactions).toBe(0);
    // The second is up: the batch starts by itself.
    await vi.advanceTimersByTimeAsync(1);
    expect(db.transactions).toBe(1);
    await writer.flush();
    expect(db.transactions).toBe(1);
    expect(await Promise.all(users.map((u) => lastActive(u.row.id)))).toEqual([later.at, now.at, now.at]);
    expect(writer.pending(users[0].row.id)).toBeUndefined();
  });

  it('keeps a newer stored mark, and a mark is pending while its batch is being written', async () => {
    const writer = new ActivityWriter(t.ctx.dbHandle.db, log);
    const u = await t.createUser();
    const stored = '2026-11-28T10:00:30.000Z';
    await t.ctx.dbHandle.db
      .updateTable('users')
      .set({ last_active_time: stored })
      .where('id', '=', u.row.id)
      .execute();
    const old = at('2026-11-28T10:00:00.000Z');
    writer.mark(u.row.id, old.at, old.stale);
    const writing = writer.flush();
    expect(writer.pending(u.row.id)).toBe(old.at);
    await writing;
    expect(await lastActive(u.row.id)).toBe(stored);
  });

  it('a batch that fails is logged and dropped; the next marks are written', async () => {
    let fail = true;
    const db = {
      transaction: () => {
        if (fail) throw new Error('database is locked');
        return t.ctx.dbHandle.db.transaction();
      },
    } as unknown as Transactional;
    const warn = vi.fn();
    const writer = new ActivityWriter(db, { warn });
    const u = await t.createUser();
    const now = at('2026-11-28T11:00:00.000Z');
    writer.mark(u.row.id, now.at, now.stale);
    await writer.flush();
    expect(warn).toHaveBeenCalledOnce();
    expect(writer.pending(u.row.id)).toBeUndefined();
    fail = false;
    writer.mark(u.row.id, now.at, now.stale);
    await writer.close();
    expect(await lastActive(u.row.id)).toBe(now.at);
  });
});
