import { sql } from 'kysely';
import type { NewUserRow, UserRow, UserRowUpdate } from '../db/schema';
import { prepared } from '../db/prepared';
import type { Executor } from './executor';

/** A batch of activity marks runs it once per user. */
const touchActive = prepared((db, v: { id: number; now: string; staleBefore: string }) =>
  db
    .updateTable('users')
    .set({ last_active_time: v.now })
    .where('id', '=', v.id)
    .where((eb) => eb.or([eb('last_active_time', 'is', null), eb('last_active_time', '<', v.staleBefore)])),
);

/** Filters of the admin user list. */
export interface UserFilter {
  /** Case-insensitive part of the username, nickname, email or remark, or the exact id. */
  matching?: string;
  /** A group id, or null for users in no group. */
  groupId?: number | null;
  active?: boolean;
  superuser?: boolean;
}

export type UserSort = 'id' | 'username' | 'last_active' | 'group';

export interface UserPage {
  sort: UserSort;
  desc: boolean;
  offset: number;
  limit: number;
}

/** The `users` table. */
export function userRepository(db: Executor) {
  function filtered(filter: UserFilter) {
    let q = db.selectFrom('users');
    if (filter.groupId === null) q = q.where('users.group_id', 'is', null);
    else if (filter.groupId !== undefined) q = q.where('users.group_id', '=', filter.groupId);
    if (filter.active !== undefined) q = q.where('users.is_active', '=', filter.active ? 1 : 0);
    if (filter.superuser !== undefined) q = q.where('users.is_superuser', '=', filter.superuser ? 1 : 0);
    if (filter.matching) {
      const text = filter.matching.toLowerCase();
      const pattern = `%${text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
      const like = sql<string>`${pattern} escape '\\'`;
      const id = /^\d{1,9}$/.test(text) ? Number(text) : null;
      q = q.where((eb) =>
        eb.or([
          eb(eb.fn('lower', ['users.username']), 'like', like),
          eb(eb.fn('lower', ['users.nickname']), 'like', like),
          eb(eb.fn('lower', ['users.email']), 'like', like),
          eb(eb.fn('lower', ['users.remark']), 'like', like),
          ...(id === null ? [] : [eb('users.id', '=', id)]),
        ]),
      );
    }
    return q;
  }
  return {
    /** One page of the users that match, sorted (ties by id). */
    page(filter: UserFilter, page: UserPage): Promise<UserRow[]> {
      const dir = page.desc ? 'desc' : 'asc';
      // Never active sorts as the oldest; no group before any group name.
      const order =
        page.sort === 'username'
          ? sql`lower(users.username)`
          : page.sort === 'last_active'
            ? sql`coalesce(users.last_active_time, '')`
            : page.sort === 'group'
              ? sql`coalesce((select name from user_groups where user_groups.id = users.group_id), '')`
              : sql`users.id`;
      const q = filtered(filter).selectAll('users').orderBy(order, dir);
      return q.orderBy('users.id', dir).limit(page.limit).offset(page.offset).execute();
    },
    async countMatching(filter: UserFilter): Promise<number> {
      const r = await filtered(filter)
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .executeTakeFirstOrThrow();
      return Number(r.n);
    },
    /** Id, username and nickname of the users that match, by id (at most `limit`). */
    refs(filter: UserFilter, limit: number): Promise<{ id: number; username: string; nickname: string }[]> {
      return filtered(filter)
        .select(['users.id', 'users.username', 'users.nickname'])
        .orderBy('users.id')
        .limit(limit)
        .execute();
    },
    /** Usernames of the given users (a page's owners), by id. */
    async usernames(ids: readonly number[]): Promise<Map<number, string>> {
      if (ids.length === 0) return new Map();
      const rows = await db
        .selectFrom('users')
        .select(['id', 'username'])
        .where('id', 'in', [...ids])
        .execute();
      return new Map(rows.map((r) => [r.id, r.username]));
    },
    findById(id: number): Promise<UserRow | undefined> {
      return db.selectFrom('users').selectAll().where('id', '=', id).executeTakeFirst();
    },
    findByUsername(username: string): Promise<UserRow | undefined> {
      return db.selectFrom('users').selectAll().where('username', '=', username).executeTakeFirst();
    },
    /** Every other user's username (a new name is compared with all of them, see `assertUsernameFree`). */
    async listUsernames(exceptId?: number): Promise<string[]> {
      let query = db.selectFrom('users').select('username');
      if (exceptId !== undefined) query = query.where('id', '<>', exceptId);
      return (await query.execute()).map((r) => r.username);
    },
    /**
     * The oldest account with this email (compared without case) that an admin or the identity provider gave it —
     * not one whose owner typed it (`self_claimed`): single sign-on may link a first sign-in to it.
     */
    findLinkableByEmail(email: string): Promise<UserRow | undefined> {
      return db
        .selectFrom('users')
        .selectAll()
        .where((eb) => eb(eb.fn('lower', ['email']), '=', email.toLowerCase()))
        .where('self_claimed', '=', 0)
        .orderBy('id')
        .executeTakeFirst();
    },
    async insert(row: NewUserRow): Promise<UserRow> {
      return db.insertInto('users').values(row).returningAll().executeTakeFirstOrThrow();
    },
    async update(id: number, patch: UserRowUpdate): Promise<UserRow | undefined> {
      return db.updateTable('users').set(patch).where('id', '=', id).returningAll().executeTakeFirst();
    },
    async deleteById(id: number): Promise<boolean> {
      const r = await db.deleteFrom('users').where('id', '=', id).executeTakeFirst();
      return Number(r.numDeletedRows) > 0;
    },
    /** Writes last_active_time only when the stored one is older than `staleBefore` (≤ one write a minute). */
    async touchActive(id: number, now: string, staleBefore: string): Promise<void> {
      await touchActive.run(db, { id, now, staleBefore });
    },
    /**
     * How many non-superusers were active since each of the given times (ISO), in one pass; the scan is bounded by
     * the oldest time on `last_active_time`.
     */
    async countActiveNonSuperusersSince(times: readonly string[]): Promise<number[]> {
      if (times.length === 0) return [];
      const oldest = times.reduce((a, b) => (b < a ? b : a));
      const row = await db
        .selectFrom('users')
        .select((eb) =>
          times.map((time, i) =>
            eb.fn
              .sum<number>(eb.case().when('last_active_time', '>=', time).then(1).else(0).end())
              .as(`since_${i}`),
          ),
        )
        .where('is_superuser', '=', 0)
        .where('last_active_time', '>=', oldest)
        .executeTakeFirstOrThrow();
      // SUM over no rows is NULL; PostgreSQL returns it as a string.
      return times.map((_, i) => Number(row[`since_${i}`] ?? 0));
    },
    /**
     * Write-locks every active superuser row and returns how many there are. Run first in a transaction that may
     * take away superuser rights: concurrent ones then queue up and each counts what the other left (PostgreSQL
     * re-checks the condition on rows another transaction changed; SQLite runs one writer at a time anyway).
     */
    async lockActiveSuperusers(): Promise<number> {
      const r = await db
        .updateTable('users')
        .set((eb) => ({ is_superuser: eb.ref('is_superuser') }))
        .where('is_superuser', '=', 1)
        .where('is_active', '=', 1)
        .executeTakeFirst();
      return Number(r.numUpdatedRows);
    },
    async count(): Promise<number> {
      const r = await db
        .selectFrom('users')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .executeTakeFirstOrThrow();
      return Number(r.n);
    },
  };
}
