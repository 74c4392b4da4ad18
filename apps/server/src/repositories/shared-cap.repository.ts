import { sql } from 'kysely';
import type { DialectName } from '../db/client';
import type { Executor } from './executor';

/** The key under which asks count toward a shared cap: `<source>:<model prefix>`. */
export function sharedCapKey(source: string, modelPrefix: string): string {
  return `${source}:${modelPrefix}`;
}

/** The `shared_cap_events` table: one row per ask admitted under a cap every user shares (sliding window). */
export function sharedCapRepository(db: Executor) {
  const countSince = async (cap: string, since: string): Promise<number> => {
    const r = await db
      .selectFrom('shared_cap_events')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('cap', '=', cap)
      .where('time', '>', since)
      .executeTakeFirstOrThrow();
    return Number(r.n);
  };
  return {
    countSince,
    /**
     * Takes one place under the cap when fewer than `limit` were taken since `since`; returns its id, or null when
     * the cap is reached. Call inside a transaction: on PostgreSQL a transaction-scoped advisory lock per cap makes
     * the count and the insert one step across connections and instances; SQLite runs one write transaction at a
     * time.
     */
    async takeIfUnder(
      dialect: DialectName,
      input: { cap: string; since: string; limit: number; time: string },
    ): Promise<number | null> {
      if (dialect === 'postgres') {
        await sql`select pg_advisory_xact_lock(hashtext(${`shared_cap:${input.cap}`}))`.execute(db);
      }
      if ((await countSince(input.cap, input.since)) >= input.limit) return null;
      const r = await db
        .insertInto('shared_cap_events')
        .values({ cap: input.cap, time: input.time })
        .returning('id')
        .executeTakeFirstOrThrow();
      return r.id;
    },
    async delete(id: number): Promise<void> {
      await db.deleteFrom('shared_cap_events').where('id', '=', id).execute();
    },
    async purgeBefore(time: string): Promise<number> {
      const r = await db.deleteFrom('shared_cap_events').where('time', '<', time).executeTakeFirst();
      return Number(r.numDeletedRows);
    },
  };
}
