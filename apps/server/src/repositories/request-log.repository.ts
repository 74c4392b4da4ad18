import { sql } from 'kysely';
import type { Insertable, Selectable } from 'kysely';
import type { RequestLogsTable, RequestStatsRollupsTable } from '../db/schema';
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

type StatsRow = Pick<
  Selectable<RequestLogsTable>,
  'time' | 'route_path' | 'method' | 'user_id' | 'elapsed_ms'
>;

const REQUEST_ROLLUPS: RollupShape = {
  table: 'request_stats_rollups',
  keys: ['route_path', 'method'],
  sums: ['total_elapsed_ms'],
};
const upsertRollups = rollupUpsert<RequestStatsRollupsTable>(REQUEST_ROLLUPS);

/**
 * Adds rows to their `request_stats_rollups` buckets of each granularity (`spans`; a part per span, bucket,
 * route and method; multi-row upserts).
 */
async function addToRollups(
  db: Executor,
  rows: readonly StatsRow[],
  spans: readonly number[] = ROLLUP_SPANS,
): Promise<void> {
  const parts = rollupParts(
    rows,
    spans,
    (r) => `${r.route_path}\u0000${r.method}`,
    (span, bucket, r): RequestStatsRollupsTable => ({
      span,
      bucket,
      route_path: r.route_path,
      method: r.method,
      count: 0,
      total_elapsed_ms: 0,
      user_ids_json: '[]',
    }),
    (p, r) => {
      p.count += 1;
      p.total_elapsed_ms += Number(r.elapsed_ms);
    },
  );
  for (const batch of upsertBatches(parts)) {
    await upsertRollups.run(db, {}, batch);
  }
}

/** The `request_logs` table: one row per /api request (see http/request-stats.ts), and its statistics rollups. */
export function requestLogRepository(db: Executor) {
  return {
    /** The rows and their rollup buckets, together. */
    async insertMany(rows: Insertable<RequestLogsTable>[]): Promise<void> {
      if (rows.length === 0) return;
      await inTransaction(db, async (trx) => {
        await trx.insertInto('request_logs').values(rows).execute();
        await addToRollups(
          trx,
          rows.map((r) => ({ ...r, user_id: r.user_id ?? null })),
        );
      });
    },
    /** Rows in [start, end) with only the columns the statistics need (range on the indexed `time`). */
    listForStats(start: string, end: string): Promise<StatsRow[]> {
      return db
        .selectFrom('request_logs')
        .select(['time', 'route_path', 'method', 'user_id', 'elapsed_ms'])
        .where('time', '>=', start)
        .where('time', '<', end)
        .orderBy('time')
        .execute();
    },
    /** 30-minute rollup rows of the buckets starting in [fromBucket, toBucket) (epoch seconds), in bucket order. */
    listRollups(fromBucket: number, toBucket: number) {
      return db
        .selectFrom('request_stats_rollups')
        .select(['bucket', 'route_path', 'method', 'count', 'total_elapsed_ms', 'user_ids_json'])
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
      const object = sql<string>`'{"_id":{"start_time":"' || ${startTimeMark(d)} || '","route_path":'
        || ${jsonString('route_path', d)} || ',"method":' || ${jsonString('method', d)} || '},"count":' || count
        || ',"user_ids":' || user_ids_json || ',"avg_elapsed_ms":' || ${jsRounded(sql`total_elapsed_ms / count`, 100)}
        || '}'`;
      return rollupBucketsJson(db, REQUEST_ROLLUPS, object, span, fromBucket, toBucket);
    },
    /**
     * Deletes the rows before `time` and their rollups: whole buckets go, and the buckets holding `time` are built
     * again from the rows it keeps.
     */
    async purgeBefore(time: string): Promise<number> {
      return inTransaction(db, async (trx) => {
        const r = await trx.deleteFrom('request_logs').where('time', '<', time).executeTakeFirst();
        await purgeRollups(trx, REQUEST_ROLLUPS, time, async (start, end) =>
          addToRollups(trx, await requestLogRepository(trx).listForStats(start, end), [ROLLUP_SECONDS]),
        );
        return Number(r.numDeletedRows);
      });
    },
  };
}
