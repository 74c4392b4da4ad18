import type { NewUserRow, UserRow, UserRowUpdate } from '../db/schema';
import type { Executor } from './executor';

/** The `users` table. */
export function userRepository(db: Executor) {
  return {
    findById(id: number): Promise<UserRow | undefined> {
      return db.selectFrom('users').selectAll().where('id', '=', id).executeTakeFirst();
    },
    findByUsername(username: string): Promise<UserRow | undefined> {
      return db.selectFrom('users').selectAll().where('username', '=', username).executeTakeFirst();
    },
    /** The oldest account with this email, compared without case. */
    findByEmail(email: string): Promise<UserRow | undefined> {
      return db
        .selectFrom('users')
        .selectAll()
        .where((eb) => eb(eb.fn('lower', ['email']), '=', email.toLowerCase()))
        .orderBy('id')
        .executeTakeFirst();
    },
    listAll(): Promise<UserRow[]> {
      return db.selectFrom('users').selectAll().orderBy('id').execute();
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
      await db
        .updateTable('users')
        .set({ last_active_time: now })
        .where('id', '=', id)
        .where((eb) => eb.or([eb('last_active_time', 'is', null), eb('last_active_time', '<', staleBefore)]))
        .execute();
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
