import { sql } from 'kysely';
import type { Insertable } from 'kysely';
import type { AskLogRow, AskLogsTable } from '../db/schema';
import type { Executor } from './executor';

/** How usage is grouped: per user, per source and model, or per UTC day. */
export type UsageGrouping = 'user' | 'model' | 'day';

/** One group of asks as the database returns it (PostgreSQL gives sums and means as strings). */
export interface UsageAggregate {
  user_id: number | null;
  username: string | null;
  source: string | null;
  model: string | null;
  day: string | null;
  asks: number | string;
  input_tokens: number | string | null;
  output_tokens: number | string | null;
  estimated_asks: number | string | null;
  avg_queue_seconds: number | string | null;
  avg_answer_seconds: number | string | null;
  errors: number | string | null;
}

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
    /** Asks in [start, end) (of one user, if given) summed per group in SQL. */
    usage(
      filter: { start: string; end: string; userId?: number },
      group: UsageGrouping,
    ): Promise<UsageAggregate[]> {
      const day = sql<string>`substr(ask_logs.time, 1, 10)`;
      let q = db
        .selectFrom('ask_logs')
        .where('ask_logs.time', '>=', filter.start)
        .where('ask_logs.time', '<', filter.end)
        .select((eb) => [
          eb.fn.countAll<number | string>().as('asks'),
          eb.fn.sum<number | string | null>('ask_logs.input_tokens').as('input_tokens'),
          eb.fn.sum<number | string | null>('ask_logs.output_tokens').as('output_tokens'),
          eb.fn.sum<number | string | null>('ask_logs.tokens_estimated').as('estimated_asks'),
          eb.fn.avg<number | string | null>('ask_logs.queueing_time').as('avg_queue_seconds'),
          eb.fn.avg<number | string | null>('ask_logs.ask_time').as('avg_answer_seconds'),
          eb.fn
            .sum<number | string | null>(
              eb.case().when('ask_logs.outcome', 'in', ['error', 'timeout']).then(1).else(0).end(),
            )
            .as('errors'),
        ]);
      if (filter.userId !== undefined) q = q.where('ask_logs.user_id', '=', filter.userId);
      const none = sql<null>`null`;
      if (group === 'user')
        return q
          .leftJoin('users', 'users.id', 'ask_logs.user_id')
          .select(['ask_logs.user_id', 'users.username', none.as('source'), none.as('model'), none.as('day')])
          .groupBy(['ask_logs.user_id', 'users.username'])
          .orderBy('asks', 'desc')
          .orderBy('ask_logs.user_id')
          .execute();
      if (group === 'model')
        return q
          .select([
            none.as('user_id'),
            none.as('username'),
            'ask_logs.source',
            'ask_logs.model',
            none.as('day'),
          ])
          .groupBy(['ask_logs.source', 'ask_logs.model'])
          .orderBy('asks', 'desc')
          .orderBy('ask_logs.model')
          .execute();
      return q
        .select([none.as('user_id'), none.as('username'), none.as('source'), none.as('model'), day.as('day')])
        .groupBy(day)
        .orderBy(day)
        .execute();
    },
    async purgeBefore(time: string): Promise<number> {
      const r = await db.deleteFrom('ask_logs').where('time', '<', time).executeTakeFirst();
      return Number(r.numDeletedRows);
    },
  };
}
