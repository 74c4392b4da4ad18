import type { SessionRow, UserRow } from '../db/schema';
import { prepared } from '../db/prepared';
import type { Executor } from './executor';

/** Every request with a session cookie runs it. */
const liveWithUser = prepared((db, v: { id: string; now: string }) =>
  db
    .selectFrom('sessions')
    .innerJoin('users', 'users.id', 'sessions.user_id')
    .selectAll('users')
    .select([
      'sessions.id as s_id',
      'sessions.created_at as s_created_at',
      'sessions.expires_at as s_expires_at',
      'sessions.last_seen_at as s_last_seen_at',
      'sessions.user_agent as s_user_agent',
      'sessions.ip as s_ip',
    ])
    .where('sessions.id', '=', v.id)
    .where('sessions.expires_at', '>', v.now),
);

/** A batch of activity marks runs it once per session. */
const touchSeen = prepared((db, v: { id: string; now: string; staleBefore: string }) =>
  db
    .updateTable('sessions')
    .set({ last_seen_at: v.now })
    .where('id', '=', v.id)
    .where('last_seen_at', '<', v.staleBefore),
);

/** Server-side sessions: one row per login, revoked by deleting it. */
export function sessionRepository(db: Executor) {
  return {
    async insert(row: SessionRow): Promise<void> {
      await db.insertInto('sessions').values(row).execute();
    },
    /** The live session and its user in one query. */
    async findLiveWithUser(
      id: string,
      now: string,
    ): Promise<{ session: SessionRow; user: UserRow } | undefined> {
      const row = await liveWithUser.first(db, { id, now });
      if (!row) return undefined;
      const { s_id, s_created_at, s_expires_at, s_last_seen_at, s_user_agent, s_ip, ...user } = row;
      return {
        session: {
          id: s_id,
          user_id: user.id,
          created_at: s_created_at,
          expires_at: s_expires_at,
          last_seen_at: s_last_seen_at,
          user_agent: s_user_agent,
          ip: s_ip,
        },
        user,
      };
    },
    /** Writes last_seen_at only when the stored one is older than `staleBefore` (≤ one write a minute). */
    async touchSeen(id: string, now: string, staleBefore: string): Promise<void> {
      await touchSeen.run(db, { id, now, staleBefore });
    },
    async delete(id: string): Promise<void> {
      await db.deleteFrom('sessions').where('id', '=', id).execute();
    },
    /** Revokes every session of a user except `keepId` (password change, deactivation). */
    async deleteForUser(userId: number, keepId?: string): Promise<void> {
      let q = db.deleteFrom('sessions').where('user_id', '=', userId);
      if (keepId) q = q.where('id', '!=', keepId);
      await q.execute();
    },
    async deleteExpired(now: string): Promise<number> {
      const r = await db.deleteFrom('sessions').where('expires_at', '<=', now).executeTakeFirst();
      return Number(r.numDeletedRows);
    },
  };
}
