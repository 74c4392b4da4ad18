import type { Insertable } from 'kysely';
import type { RequestLogsTable } from '../db/schema';
import type { Executor } from './executor';

/** The `request_logs` table: one row per /api request (see http/request-stats.ts). */
export function requestLogRepository(db: Executor) {
  return {
    async insertMany(rows: Insertable<RequestLogsTable>[]): Promise<void> {
      if (rows.length > 0) await db.insertInto('request_logs').values(rows).execute();
    },
    /** Rows in [start, end) with only the columns the statistics need (range on the indexed `time`). */
    listForStats(start: string, end: string) {
      return db
        .selectFrom('request_logs')
        .select(['time', 'route_path', 'method', 'user_id', 'elapsed_ms'])
        .where('time', '>=', start)
        .where('time', '<', end)
        .orderBy('time')
        .execute();
    },
    async purgeBefore(time: string): Promise<number> {
      const r = await db.deleteFrom('request_logs').where('time', '<', time).executeTakeFirst();
      return Number(r.numDeletedRows);
    },
  };
}
