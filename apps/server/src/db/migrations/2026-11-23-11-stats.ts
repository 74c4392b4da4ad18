import { sql } from 'kysely';
import type { RawBuilder } from 'kysely';
import type { DialectName } from '../client';
import { realType } from './helpers';
import type { AnyDb } from './helpers';

/** Rollup bucket size, seconds: the finest statistics granularity; every other one is a multiple of it. */
const BUCKET_S = 1800;

/**
 * `ask_stats_rollups` and `request_stats_rollups`: per 30-minute bucket (`bucket` = its start, epoch seconds, UTC)
 * and source/model or route/method, the row count, the summed timings and the distinct users as a packed list
 * `,3,17,42,` (`,` when none). Kept up to date as log rows arrive; built here from the rows already stored (one
 * grouped INSERT … SELECT per table).
 */
export function stats(dialect: DialectName) {
  const real = realType(dialect);
  const bucketOf: RawBuilder<number> =
    dialect === 'postgres'
      ? sql`(floor(extract(epoch from time::timestamptz) / ${sql.lit(BUCKET_S)}) * ${sql.lit(BUCKET_S)})::bigint`
      : sql`(cast(strftime('%s', time) as integer) / ${sql.lit(BUCKET_S)}) * ${sql.lit(BUCKET_S)}`;
  const users: RawBuilder<string> =
    dialect === 'postgres'
      ? sql`',' || coalesce(string_agg(distinct user_id::text, ',') || ',', '')`
      : sql`',' || coalesce(group_concat(distinct user_id) || ',', '')`;
  return {
    async up(db: AnyDb) {
      await db.schema
        .createTable('ask_stats_rollups')
        .addColumn('bucket', 'bigint', (c) => c.notNull())
        .addColumn('source', 'varchar(16)', (c) => c.notNull())
        .addColumn('model', 'varchar(64)', (c) => c.notNull())
        .addColumn('count', 'integer', (c) => c.notNull())
        .addColumn('total_ask_time', real, (c) => c.notNull())
        .addColumn('total_queueing_time', real, (c) => c.notNull())
        .addColumn('user_ids', 'text', (c) => c.notNull())
        .addPrimaryKeyConstraint('ask_stats_rollups_pk', ['bucket', 'source', 'model'])
        .execute();
      await db.schema
        .createTable('request_stats_rollups')
        .addColumn('bucket', 'bigint', (c) => c.notNull())
        .addColumn('route_path', 'varchar(255)', (c) => c.notNull())
        .addColumn('method', 'varchar(16)', (c) => c.notNull())
        .addColumn('count', 'integer', (c) => c.notNull())
        .addColumn('total_elapsed_ms', real, (c) => c.notNull())
        .addColumn('user_ids', 'text', (c) => c.notNull())
        .addPrimaryKeyConstraint('request_stats_rollups_pk', ['bucket', 'route_path', 'method'])
        .execute();
      await sql`insert into ask_stats_rollups
          (bucket, source, model, count, total_ask_time, total_queueing_time, user_ids)
        select ${bucketOf}, source, model, count(*), sum(ask_time), sum(queueing_time), ${users}
        from ask_logs group by 1, source, model`.execute(db);
      await sql`insert into request_stats_rollups (bucket, route_path, method, count, total_elapsed_ms, user_ids)
        select ${bucketOf}, route_path, method, count(*), sum(elapsed_ms), ${users}
        from request_logs group by 1, route_path, method`.execute(db);
    },
    async down(db: AnyDb) {
      for (const t of ['request_stats_rollups', 'ask_stats_rollups']) await db.schema.dropTable(t).execute();
    },
  };
}
