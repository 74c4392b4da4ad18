import type { Insertable } from 'kysely';
import type { AskLogRow, AskLogsTable } from '../db/schema';
import type { Executor } from './executor';

/** The `ask_logs` table: one row per ask that passed the checks. */
export function askLogRepository(db: Executor) {
  return {
    async insert(row: Insertable<AskLogsTable>): Promise<void> {
      await db.insertInto('ask_logs').values(row).execute();
    },
    /** Rows in [start, end) with only the columns the statistics need (range on the indexed `time`). */
    listForStats(start: string, end: string) {
      return db
        .selectFrom('ask_logs')
        .select(['time', 'source', 'model', 'user_id', 'ask_time', 'queueing_time'])
        .where('time', '>=', start)
        .where('time', '<', end)
        .orderBy('time')
        .execute();
    },
    /** The newest rows first, optionally within [start, end). */
    listRecent(filter: { start?: string; end?: string; limit: number }): Promise<AskLogRow[]> {
      let q = db.selectFrom('ask_logs').selectAll();
      if (filter.start) q = q.where('time', '>=', filter.start);
      if (filter.end) q = q.where('time', '<', filter.end);
      return q.orderBy('time', 'desc').orderBy('id', 'desc').limit(filter.limit).execute();
    },
    async purgeBefore(time: string): Promise<number> {
      const r = await db.deleteFrom('ask_logs').where('time', '<', time).executeTakeFirst();
      return Number(r.numDeletedRows);
    },
  };
}
