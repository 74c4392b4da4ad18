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

/** The user's (one) session. */
function sessionOf(userId: number): Promise<{ id: string; last_seen_at: string }> {
  return t.ctx.dbHandle.db
    .selectFrom('sessions')
    .select(['id', 'last_seen_at'])
    .where('user_id', '=', userId)
    .executeTakeFirstOrThrow();
}

const lastSeen = async (userId: number) => (await sessionOf(userId)).last_seen_at;

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

  it("sessions' marks go in the same batch; a newer stored one is kept", async () => {
    const db = countingDb();
    const writer = new ActivityWriter(db, log);
    const [a, b] = await Promise.all([t.createUser(), t.createUser()]);
    await t.login(a.row.username, a.password);
    await t.login(b.row.username, b.password);
    const [sa, sb] = [await sessionOf(a.row.id), await sessionOf(b.row.id)];
    // a's session was last seen five minutes ago; b's (by another instance, say) after the mark this one makes.
    sa.last_seen_at = new Date(Date.now() - 5 * 60_000).toISOString();
    await t.ctx.dbHandle.db
      .updateTable('sessions')
      .set({ last_seen_at: sa.last_seen_at })
      .where('id', '=', sa.id)
      .execute();
    const stored = new Date(Date.now() + 60_000).toISOString();
    await t.ctx.dbHandle.db
      .updateTable('sessions')
      .set({ last_seen_at: stored })
      .where('id', '=', sb.id)
      .execute();
    const now = at(new Date(Date.now() + 1_000).toISOString());
    writer.markSession(sa.id, now.at, now.stale);
    writer.markSession(sb.id, now.at, now.stale);
    writer.mark(a.row.id, now.at, now.stale);
    const row = { id: sa.id, last_seen_at: sa.last_seen_at };
    writer.applySession(row);
    expect(row.last_seen_at).toBe(now.at);
    expect(await lastSeen(a.row.id)).toBe(sa.last_seen_at);
    await writer.flush();
    expect(db.transactions).toBe(1);
    expect(await lastSeen(a.row.id)).toBe(now.at);
    expect(await lastSeen(b.row.id)).toBe(stored);
    expect(await lastActive(a.row.id)).toBe(now.at);
  });

  it("a request on a session last seen over a minute ago writes no mark of its own: the writer's batch does", async () => {
    const u = await t.createUser();
    const cookie = await t.login(u.row.username, u.password);
    await t.ctx.activity.flush();
    const old = new Date(Date.now() - 5 * 60_000).toISOString();
    await t.ctx.dbHandle.db
      .updateTable('sessions')
      .set({ last_seen_at: old })
      .where('user_id', '=', u.row.id)
      .execute();
    const res = await t.app.inject({ url: '/api/user/me', headers: { cookie } });
    expect(res.statusCode).toBe(200);
    expect(await lastSeen(u.row.id)).toBe(old);
    await t.ctx.activity.flush();
    expect(await lastSeen(u.row.id)).not.toBe(old);
    expect(Date.parse(await lastSeen(u.row.id))).toBeGreaterThan(Date.now() - 60_000);
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
