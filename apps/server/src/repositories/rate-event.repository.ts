import type { Executor } from './executor';

/** The `rate_events` table: one row per charged ask, for sliding-window rate limits. */
export function rateEventRepository(db: Executor) {
  return {
    async countSince(userId: number, source: string, since: string): Promise<number> {
      const r = await db
        .selectFrom('rate_events')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .where('user_id', '=', userId)
        .where('source', '=', source)
        .where('time', '>', since)
        .executeTakeFirstOrThrow();
      return Number(r.n);
    },
    async insert(userId: number, source: string, time: string): Promise<number> {
      const r = await db
        .insertInto('rate_events')
        .values({ user_id: userId, source, time })
        .returning('id')
        .executeTakeFirstOrThrow();
      return r.id;
    },
    async delete(id: number): Promise<void> {
      await db.deleteFrom('rate_events').where('id', '=', id).execute();
    },
    async purgeBefore(time: string): Promise<number> {
      const r = await db.deleteFrom('rate_events').where('time', '<', time).executeTakeFirst();
      return Number(r.numDeletedRows);
    },
  };
}
