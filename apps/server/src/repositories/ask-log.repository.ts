import { sql } from 'kysely';
import type { Insertable } from 'kysely';
import type { AskLogRow, AskLogsTable, AskStatsRollupsTable } from '../db/schema';
import { dialectOf } from './executor';
import type { Executor } from './executor';
import {
  ROLLUP_SECONDS,
  ROLLUP_SPANS,
  inTransaction,
  jsRounded,
  jsonString,
  rollupUpsert,
  purgeRollups,
  rollupBucketsJson,
  rollupParts,
  startTimeMark,
  upsertBatches,
} from './stats-rollup';
import type { RollupShape } from './stats-rollup';
import { preparedRow } from '../db/prepared';
import type { NoParams } from '../db/prepared';

/** Every ask ends with one (db/prepared.ts), and its rollups (`upsertRollups`). */
const insertRow = preparedRow((db, _: NoParams, row: Insertable<AskLogsTable>) =>
  db.insertInto('ask_logs').values(row),
);

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
  /** Summed cost in micros. */
  cost: number | string | null;
}

type StatsRow = Pick<AskLogRow, 'time' | 'source' | 'model' | 'user_id' | 'ask_time' | 'queueing_time'>;

const ASK_ROLLUPS: RollupShape = {
  table: 'ask_stats_rollups',
  keys: ['source', 'model'],
  sums: ['total_ask_time', 'total_queueing_time'],
};
const upsertRollups = rollupUpsert<AskStatsRollupsTable>(ASK_ROLLUPS);

/**
 * Adds rows to their `ask_stats_rollups` buckets of each granularity (`spans`; a part per span, bucket, source
 * and model; multi-row upserts).
 */
async function addToRollups(
  db: Executor,
  rows: readonly StatsRow[],
  spans: readonly number[] = ROLLUP_SPANS,
): Promise<void> {
  const parts = rollupParts(
    rows,
    spans,
    (r) => `${r.source}\u0000${r.model}`,
    (span, bucket, r): AskStatsRollupsTable => ({
      span,
      bucket,
      source: r.source,
      model: r.model,
      count: 0,
      total_ask_time: 0,
      total_queueing_time: 0,
      user_ids_json: '[]',
    }),
    (p, r) => {
      p.count += 1;
      p.total_ask_time += Number(r.ask_time);
      p.total_queueing_time += Number(r.queueing_time);
    },
  );
  for (const batch of upsertBatches(parts)) {
    await upsertRollups.run(db, {}, batch);
  }
}

/** The `ask_logs` table: one row per ask that passed the checks, and its statistics rollups kept with it. */
export function askLogRepository(db: Executor) {
  return {
    /** The row and its rollup bucket, together. */
    async insert(row: Insertable<AskLogsTable>): Promise<void> {
      await inTransaction(db, async (trx) => {
        await insertRow.run(trx, {}, row);
        await addToRollups(trx, [{ ...row, user_id: row.user_id ?? null }]);
      });
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
    listForStats(start: string, end: string): Promise<StatsRow[]> {
      return db
        .selectFrom('ask_logs')
        .select(['time', 'source', 'model', 'user_id', 'ask_time', 'queueing_time'])
        .where('time', '>=', start)
        .where('time', '<', end)
        .orderBy('time')
        .execute();
    },
    /** 30-minute rollup rows of the buckets starting in [fromBucket, toBucket) (epoch seconds), in bucket order. */
    listRollups(fromBucket: number, toBucket: number) {
      return db
        .selectFrom('ask_stats_rollups')
        .select([
          'bucket',
          'source',
          'model',
          'count',
          'total_ask_time',
          'total_queueing_time',
          'user_ids_json',
        ])
        .where('span', '=', ROLLUP_SECONDS)
        .where('bucket', '>=', fromBucket)
        .where('bucket', '<', toBucket)
        .orderBy('bucket')
        .execute();
    },
    /**
     * The answer's buckets of `span` seconds starting in [fromBucket, toBucket), built in SQL: per bucket, in bucket
     * order, the JSON objects of its rows joined by `,` (see rollupBucketsJson).
     */
    rollupsJson(span: number, fromBucket: number, toBucket: number): Promise<string[]> {
      const d = dialectOf(db);
      const object = sql<string>`'{"_id":{"start_time":"' || ${startTimeMark(d)} || '","meta":{"source":'
        || ${jsonString('source', d)} || ',"model":' || ${jsonString('model', d)} || '}},"count":' || count
        || ',"user_ids":' || user_ids_json || ',"total_ask_time":' || ${jsRounded(sql`total_ask_time`, 1000)}
        || ',"total_queueing_time":' || ${jsRounded(sql`total_queueing_time`, 1000)} || '}'`;
      return rollupBucketsJson(db, ASK_ROLLUPS, object, span, fromBucket, toBucket);
    },
    /** The newest asks in [start, end), with the asker's username. */
    listRecent(filter: {
      start?: string;
      end?: string;
      limit: number;
    }): Promise<(AskLogRow & { username: string | null })[]> {
      let q = db
        .selectFrom('ask_logs')
        .leftJoin('users', 'users.id', 'ask_logs.user_id')
        .selectAll('ask_logs')
        .select('users.username');
      if (filter.start) q = q.where('ask_logs.time', '>=', filter.start);
      if (filter.end) q = q.where('ask_logs.time', '<', filter.end);
      return q.orderBy('ask_logs.time', 'desc').orderBy('ask_logs.id', 'desc').limit(filter.limit).execute();
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
          eb.fn.sum<number | string | null>('ask_logs.cost').as('cost'),
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
    /**
     * Deletes the rows before `time` and their rollups: whole buckets go, and the buckets holding `time` are built
     * again from the rows it keeps.
     */
    async purgeBefore(time: string): Promise<number> {
      return inTransaction(db, async (trx) => {
        const r = await trx.deleteFrom('ask_logs').where('time', '<', time).executeTakeFirst();
        await purgeRollups(trx, ASK_ROLLUPS, time, async (start, end) =>
          addToRollups(trx, await askLogRepository(trx).listForStats(start, end), [ROLLUP_SECONDS]),
        );
        return Number(r.numDeletedRows);
      });
    },
  };
}
