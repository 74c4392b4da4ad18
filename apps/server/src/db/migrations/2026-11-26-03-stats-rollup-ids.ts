import { sql } from 'kysely';
import type { RawBuilder } from 'kysely';
import type { DialectName } from '../client';
import { realType } from './helpers';
import type { AnyDb } from './helpers';

/** The statistics granularities (seconds) at the time of this migration: a rollup level for each. */
const SPANS = [1800, 3600, 10800, 21600, 43200, 86400];

interface Shape {
  table: 'ask_stats_rollups' | 'request_stats_rollups';
  keys: readonly [string, string];
  sums: readonly string[];
}

const SHAPES: Shape[] = [
  { table: 'ask_stats_rollups', keys: ['source', 'model'], sums: ['total_ask_time', 'total_queueing_time'] },
  { table: 'request_stats_rollups', keys: ['route_path', 'method'], sums: ['total_elapsed_ms'] },
];

/**
 * Statistics rollups at every statistics granularity, their users ready to answer with:
 *
 * - `span` (seconds) joins the key: a row per bucket of each granularity (30 min … 1 day), so the whole buckets of
 *   any granularity are read, never merged, and the answer grows with its own size only;
 * - the distinct users are a sorted JSON array, `user_ids_json` = `[3,17,42]` (`[]` for none), instead of the
 *   packed list in arrival order (`user_ids` = `,42,3,17,`): a row's list is the answer's `user_ids` as is. The
 *   column is renamed so that a process still writing the packed form fails instead of corrupting a list.
 *
 * The tables are built anew (SQLite cannot change a primary key): the 30-minute rows converted, each coarser level
 * merged from them.
 */
export function statsRollupIds(dialect: DialectName) {
  const real = realType(dialect);
  const sortedFromPacked: RawBuilder<string> =
    dialect === 'postgres'
      ? sql`(select '[' || coalesce(string_agg(v::text, ',' order by v), '') || ']'
          from (select distinct unnest(string_to_array(trim(both ',' from user_ids), ','))::bigint as v) u)`
      : sql`(select '[' || coalesce(group_concat(v, ',' order by v), '') || ']'
          from (select distinct value as v from json_each('[' || trim(user_ids, ',') || ']')) u)`;

  async function create(db: AnyDb, name: string, shape: Shape, withSpan: boolean) {
    let t = db.schema.createTable(name);
    if (withSpan) t = t.addColumn('span', 'integer', (c) => c.notNull());
    t = t
      .addColumn('bucket', 'bigint', (c) => c.notNull())
      .addColumn(shape.keys[0], shape.table === 'ask_stats_rollups' ? 'varchar(16)' : 'varchar(255)', (c) =>
        c.notNull(),
      )
      .addColumn(shape.keys[1], shape.table === 'ask_stats_rollups' ? 'varchar(64)' : 'varchar(16)', (c) =>
        c.notNull(),
      )
      .addColumn('count', 'integer', (c) => c.notNull());
    for (const s of shape.sums) t = t.addColumn(s, real, (c) => c.notNull());
    t = t.addColumn(withSpan ? 'user_ids_json' : 'user_ids', 'text', (c) => c.notNull());
    const pk = withSpan ? ['span', 'bucket', ...shape.keys] : ['bucket', ...shape.keys];
    // Columns added in a loop: the builder no longer knows their names.
    await t.addPrimaryKeyConstraint(`${shape.table}${withSpan ? '_span' : ''}_pk`, pk as never[]).execute();
  }

  return {
    async up(db: AnyDb) {
      for (const shape of SHAPES) {
        const next = `${shape.table}_next`;
        const [k1, k2] = shape.keys.map((k) => sql.ref(k));
        const sums = sql.join(shape.sums.map((s) => sql.ref(s)));
        const summed = sql.join(shape.sums.map((s) => sql`sum(${sql.ref(s)}) as ${sql.ref(s)}`));
        await create(db, next, shape, true);
        await sql`insert into ${sql.table(next)} (span, bucket, ${k1}, ${k2}, count, ${sums}, user_ids_json)
          select 1800, bucket, ${k1}, ${k2}, count, ${sums}, ${sortedFromPacked}
          from ${sql.table(shape.table)}`.execute(db);
        for (const span of SPANS.slice(1)) {
          const g = sql.lit(span);
          // Each coarse bucket's users: the distinct ids of its 30-minute rows' lists, ascending.
          const users: RawBuilder<string> =
            dialect === 'postgres'
              ? sql`(select '[' || coalesce(string_agg(v::text, ',' order by v), '') || ']' from (
                  select distinct json_array_elements_text(r.user_ids_json::json)::bigint as v
                  from ${sql.table(next)} r
                  where r.span = 1800 and r.bucket >= g.b and r.bucket < g.b + ${g}
                    and r.${k1} = g.${k1} and r.${k2} = g.${k2}) u)`
              : sql`(select '[' || coalesce(group_concat(v, ',' order by v), '') || ']' from (
                  select distinct j.value as v from ${sql.table(next)} r, json_each(r.user_ids_json) j
                  where r.span = 1800 and r.bucket >= g.b and r.bucket < g.b + ${g}
                    and r.${k1} = g.${k1} and r.${k2} = g.${k2}) u)`;
          await sql`insert into ${sql.table(next)} (span, bucket, ${k1}, ${k2}, count, ${sums}, user_ids_json)
            select ${g}, g.b, g.${k1}, g.${k2}, g.count, ${sql.join(shape.sums.map((s) => sql`g.${sql.ref(s)}`))}, ${users}
            from (select bucket - bucket % ${g} as b, ${k1}, ${k2}, sum(count) as count, ${summed}
              from ${sql.table(next)} where span = 1800 group by 1, ${k1}, ${k2}) g`.execute(db);
        }
        await db.schema.dropTable(shape.table).execute();
        await db.schema.alterTable(next).renameTo(shape.table).execute();
      }
    },
    async down(db: AnyDb) {
      for (const shape of SHAPES) {
        const previous = `${shape.table}_previous`;
        const [k1, k2] = shape.keys.map((k) => sql.ref(k));
        const sums = sql.join(shape.sums.map((s) => sql.ref(s)));
        await create(db, previous, shape, false);
        await sql`insert into ${sql.table(previous)} (bucket, ${k1}, ${k2}, count, ${sums}, user_ids)
          select bucket, ${k1}, ${k2}, count, ${sums},
            case when user_ids_json = '[]' then ','
              else ',' || substr(user_ids_json, 2, length(user_ids_json) - 2) || ',' end
          from ${sql.table(shape.table)} where span = 1800`.execute(db);
        await db.schema.dropTable(shape.table).execute();
        await db.schema.alterTable(previous).renameTo(shape.table).execute();
      }
    },
  };
}
