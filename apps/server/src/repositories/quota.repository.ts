import { sql } from 'kysely';
import type { Executor } from './executor';
import { prepared } from '../db/prepared';

/** Model key of a source's total count. */
export const TOTAL = '*';

export interface CounterRow {
  user_id: number;
  source: string;
  /** Model name, or '*' for the total. */
  model: string;
  /** -1 = unlimited. */
  remaining: number;
}

/** Every ask reads its user's (db/prepared.ts). */
const countersOfUser = prepared((db, v: { userId: number }) =>
  db.selectFrom('quota_counters').selectAll().where('user_id', '=', v.userId),
);

/**
 * Quota counters live in their own rows so that charging is one conditional UPDATE, never a read-modify-write
 * of a settings blob.
 */
export function quotaRepository(db: Executor) {
  return {
    listForUsers(userIds: number[]): Promise<CounterRow[]> {
      if (userIds.length === 0) return Promise.resolve([]);
      if (userIds.length === 1) return countersOfUser.rows(db, { userId: userIds[0]! });
      return db.selectFrom('quota_counters').selectAll().where('user_id', 'in', userIds).execute();
    },
    /** Replaces every counter of a user (admin settings write). */
    async replaceForUser(userId: number, rows: Omit<CounterRow, 'user_id'>[]): Promise<void> {
      await db.deleteFrom('quota_counters').where('user_id', '=', userId).execute();
      if (rows.length > 0) {
        await db
          .insertInto('quota_counters')
          .values(rows.map((r) => ({ ...r, user_id: userId })))
          .execute();
      }
    },
    /**
     * Takes one ask from a counter if it has one: true when charged (or unlimited / no row = unlimited),
     * false when exhausted.
     */
    async decrementIfAvailable(userId: number, source: string, model: string): Promise<boolean> {
      const r = await db
        .updateTable('quota_counters')
        .set({ remaining: sql<number>`remaining - 1` })
        .where('user_id', '=', userId)
        .where('source', '=', source)
        .where('model', '=', model)
        .where('remaining', '>', 0)
        .executeTakeFirst();
      if (Number(r.numUpdatedRows) > 0) return true;
      const row = await db
        .selectFrom('quota_counters')
        .select('remaining')
        .where('user_id', '=', userId)
        .where('source', '=', source)
        .where('model', '=', model)
        .executeTakeFirst();
      return !row || row.remaining === -1;
    },
    /** Gives back one ask (refund); unlimited counters stay unlimited. */
    async increment(userId: number, source: string, model: string): Promise<void> {
      await db
        .updateTable('quota_counters')
        .set({ remaining: sql<number>`remaining + 1` })
        .where('user_id', '=', userId)
        .where('source', '=', source)
        .where('model', '=', model)
        .where('remaining', '>=', 0)
        .execute();
    },
  };
}
