import { sql } from 'kysely';
import type { Insertable, Selectable } from 'kysely';
import type { RequestLogsTable, RequestStatsRollupsTable } from '../db/schema';
import type { DialectName } from '../db/client';
import type { Executor } from './executor';
import {
  ROLLUP_SECONDS,
  concatenatedUsers,
  inTransaction,
  mergedUsers,
  packUser,
  regroupedBucket,
  rollupBucketBounds,
  rollupParts,
  upsertBatches,
} from './stats-rollup';

type StatsRow = Pick<
  Selectable<RequestLogsTable>,
  'time' | 'route_path' | 'method' | 'user_id' | 'elapsed_ms'
>;

/** Adds rows to their `request_stats_rollups` buckets (a part per bucket, route, method and user; multi-row upserts). */
async function addToRollups(db: Executor, rows: readonly StatsRow[]): Promise<void> {
  const parts = rollupParts(
    rows,
    (r) => `${r.route_path}\u0000${r.method}`,
    (bucket, r): RequestStatsRollupsTable => ({
      bucket,
      route_path: r.route_path,
      method: r.method,
      count: 0,
      total_elapsed_ms: 0,
      user_ids: packUser(r.user_id),
    }),
    (p, r) => {
      p.count += 1;
      p.total_elapsed_ms += Number(r.elapsed_ms);
    },
  );
  for (const batch of upsertBatches(parts, (p) => `${p.bucket}\u0000${p.route_path}\u0000${p.method}`)) {
    await db
      .insertInto('request_stats_rollups')
      .values(batch)
      .onConflict((oc) =>
        oc.columns(['bucket', 'route_path', 'method']).doUpdateSet({
          count: sql`request_stats_rollups.count + excluded.count`,
          total_elapsed_ms: sql`request_stats_rollups.total_elapsed_ms + excluded.total_elapsed_ms`,
          user_ids: mergedUsers('request_stats_rollups'),
        }),
      )
      .execute();
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
    /**
     * Rollup rows of the buckets starting in [fromBucket, toBucket) (epoch seconds, on the primary key), regrouped
     * in SQL to `granularity` seconds when coarser than the rollups: `start` is the bucket start, epoch seconds;
     * regrouped `user_ids` are concatenated lists that can repeat a user.
     */
    listRollups(fromBucket: number, toBucket: number, granularity: number, dialect: DialectName) {
      const q = db
        .selectFrom('request_stats_rollups')
        .where('bucket', '>=', fromBucket)
        .where('bucket', '<', toBucket);
      if (granularity === ROLLUP_SECONDS)
        return q
          .select([
            sql<number>`bucket`.as('start'),
            'route_path',
            'method',
            'count',
            'total_elapsed_ms',
            'user_ids',
          ])
          .execute();
      const start = regroupedBucket(granularity);
      return q
        .select([
          start.as('start'),
          'route_path',
          'method',
          sql<number>`sum(count)`.as('count'),
          sql<number>`sum(total_elapsed_ms)`.as('total_elapsed_ms'),
          concatenatedUsers(dialect).as('user_ids'),
        ])
        .groupBy([start, 'route_path', 'method'])
        .execute();
    },
    /**
     * Deletes the rows before `time` and their rollups: whole buckets go, and the bucket holding `time` is built
     * again from the rows it keeps.
     */
    async purgeBefore(time: string): Promise<number> {
      const edge = rollupBucketBounds(time);
      return inTransaction(db, async (trx) => {
        const r = await trx.deleteFrom('request_logs').where('time', '<', time).executeTakeFirst();
        await trx.deleteFrom('request_stats_rollups').where('bucket', '<=', edge.bucket).execute();
        await addToRollups(trx, await requestLogRepository(trx).listForStats(edge.start, edge.end));
        return Number(r.numDeletedRows);
      });
    },
  };
}
