import { sql } from 'kysely';
import type { Insertable } from 'kysely';
import type { AskLogRow, AskLogsTable, AskStatsRollupsTable } from '../db/schema';
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

type StatsRow = Pick<AskLogRow, 'time' | 'source' | 'model' | 'user_id' | 'ask_time' | 'queueing_time'>;

/** Adds rows to their `ask_stats_rollups` buckets (a part per bucket, source, model and user; multi-row upserts). */
async function addToRollups(db: Executor, rows: readonly StatsRow[]): Promise<void> {
  const parts = rollupParts(
    rows,
    (r) => `${r.source}\u0000${r.model}`,
    (bucket, r): AskStatsRollupsTable => ({
      bucket,
      source: r.source,
      model: r.model,
      count: 0,
      total_ask_time: 0,
      total_queueing_time: 0,
      user_ids: packUser(r.user_id),
    }),
    (p, r) => {
      p.count += 1;
      p.total_ask_time += Number(r.ask_time);
      p.total_queueing_time += Number(r.queueing_time);
    },
  );
  for (const batch of upsertBatches(parts, (p) => `${p.bucket}\u0000${p.source}\u0000${p.model}`)) {
    await db
      .insertInto('ask_stats_rollups')
      .values(batch)
      .onConflict((oc) =>
        oc.columns(['bucket', 'source', 'model']).doUpdateSet({
          count: sql`ask_stats_rollups.count + excluded.count`,
          total_ask_time: sql`ask_stats_rollups.total_ask_time + excluded.total_ask_time`,
          total_queueing_time: sql`ask_stats_rollups.total_queueing_time + excluded.total_queueing_time`,
          user_ids: mergedUsers('ask_stats_rollups'),
        }),
      )
      .execute();
  }
}

/** The `ask_logs` table: one row per ask that passed the checks, and its statistics rollups kept with it. */
export function askLogRepository(db: Executor) {
  return {
    /** The row and its rollup bucket, together. */
    async insert(row: Insertable<AskLogsTable>): Promise<void> {
      await inTransaction(db, async (trx) => {
        await trx.insertInto('ask_logs').values(row).execute();
        await addToRollups(trx, [{ ...row, user_id: row.user_id ?? null }]);
      });
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
    /**
     * Rollup rows of the buckets starting in [fromBucket, toBucket) (epoch seconds, on the primary key), regrouped
     * in SQL to `granularity` seconds when coarser than the rollups: `start` is the bucket start, epoch seconds;
     * regrouped `user_ids` are concatenated lists that can repeat a user.
     */
    listRollups(fromBucket: number, toBucket: number, granularity: number, dialect: DialectName) {
      const q = db
        .selectFrom('ask_stats_rollups')
        .where('bucket', '>=', fromBucket)
        .where('bucket', '<', toBucket);
      if (granularity === ROLLUP_SECONDS)
        return q
          .select([
            sql<number>`bucket`.as('start'),
            'source',
            'model',
            'count',
            'total_ask_time',
            'total_queueing_time',
            'user_ids',
          ])
          .execute();
      const start = regroupedBucket(granularity);
      return q
        .select([
          start.as('start'),
          'source',
          'model',
          sql<number>`sum(count)`.as('count'),
          sql<number>`sum(total_ask_time)`.as('total_ask_time'),
          sql<number>`sum(total_queueing_time)`.as('total_queueing_time'),
          concatenatedUsers(dialect).as('user_ids'),
        ])
        .groupBy([start, 'source', 'model'])
        .execute();
    },
    /** The newest rows first, optionally within [start, end). */
    listRecent(filter: { start?: string; end?: string; limit: number }): Promise<AskLogRow[]> {
      let q = db.selectFrom('ask_logs').selectAll();
      if (filter.start) q = q.where('time', '>=', filter.start);
      if (filter.end) q = q.where('time', '<', filter.end);
      return q.orderBy('time', 'desc').orderBy('id', 'desc').limit(filter.limit).execute();
    },
    /**
     * Deletes the rows before `time` and their rollups: whole buckets go, and the bucket holding `time` is built
     * again from the rows it keeps.
     */
    async purgeBefore(time: string): Promise<number> {
      const edge = rollupBucketBounds(time);
      return inTransaction(db, async (trx) => {
        const r = await trx.deleteFrom('ask_logs').where('time', '<', time).executeTakeFirst();
        await trx.deleteFrom('ask_stats_rollups').where('bucket', '<=', edge.bucket).execute();
        await addToRollups(trx, await askLogRepository(trx).listForStats(edge.start, edge.end));
        return Number(r.numDeletedRows);
      });
    },
  };
}
