import type { Insertable } from 'kysely';
import type { AskLogRow, AskLogsTable } from '../db/schema';
import type { Executor } from './executor';

/** The `ask_logs` table: one row per ask that passed the checks. */
export function askLogRepository(db: Executor) {
  return {
    async insert(row: Insertable<AskLogsTable>): Promise<void> {
      await db.insertInto('ask_logs').values(row).execute();
    },
    /** Whether a row with the same time, user, conversation, source and model exists (an imported log seen again). */
    async existsSame(
      row: Pick<AskLogRow, 'time' | 'user_id' | 'conversation_id' | 'source' | 'model'>,
    ): Promise<boolean> {
      let q = db
        .selectFrom('ask_logs')
        .select('id')
        .where('time', '=', row.time)
        .where('source', '=', row.source)
        .where('model', '=', row.model);
      q = row.user_id === null ? q.where('user_id', 'is', null) : q.where('user_id', '=', row.user_id);
      q =
        row.conversation_id === null
          ? q.where('conversation_id', 'is', null)
          : q.where('conversation_id', '=', row.conversation_id);
      return !!(await q.limit(1).executeTakeFirst());
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
