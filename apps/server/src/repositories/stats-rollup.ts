import { sql } from 'kysely';
import type { RawBuilder } from 'kysely';
import { STATS_GRANULARITIES } from '@cc/contracts';
import type { DialectName } from '../db/client';
import { MERGED_USERS_FUNCTION } from '../db/user-lists';
import { preparedRow } from '../db/prepared';
import type { NoParams, PreparedRow } from '../db/prepared';
import { dialectOf } from './executor';
import type { Executor } from './executor';

/**
 * Statistics rollups (`ask_stats_rollups`, `request_stats_rollups`): per statistics granularity (`span`), bucket
 * of it and key, the row count, summed timings and the distinct users as a sorted JSON array, `[3,17,42]` (`[]`
 * for none). A whole bucket of any granularity is one row per key whose list is the answer's `user_ids` as is;
 * only the partial buckets at a range's edges are put together from the 30-minute rows and the log rows.
 */
export const ROLLUP_SECONDS = 1800;
/**
 * Every granularity has its rollup level; the finest, ROLLUP_SECONDS, divides all the others. A new granularity
 * needs a migration building its level from the 30-minute rows.
 */
export const ROLLUP_SPANS: readonly number[] = STATS_GRANULARITIES;

/** The table, its key columns and its summed columns. */
export interface RollupShape {
  table: 'ask_stats_rollups' | 'request_stats_rollups';
  keys: readonly [string, string];
  sums: readonly string[];
}

/** Start (epoch seconds, UTC) of the `span`-second bucket holding the ISO time `time`. */
export function rollupBucket(time: string, span = ROLLUP_SECONDS): number {
  return Math.floor(Date.parse(time) / (span * 1000)) * span;
}

/** The stored form of a set of user ids: a JSON array, ascending, without repeats (`[]` for none). */
export function userIdsJson(ids: Iterable<number>): string {
  const sorted = Float64Array.from(new Set(ids)).sort();
  return sorted.length === 0 ? '[]' : `[${sorted.join(',')}]`;
}

/** `[` + the values of `v` from the select `values`, ascending (they must be distinct), + `]`. */
function sortedList(dialect: DialectName, values: RawBuilder<unknown>): RawBuilder<string> {
  return dialect === 'postgres'
    ? sql<string>`(select '[' || coalesce(string_agg(v::text, ',' order by v), '') || ']' from (${values}) u)`
    : sql<string>`(select '[' || coalesce(group_concat(v, ',' order by v), '') || ']' from (${values}) u)`;
}

/** The ids of a stored list as rows of `v`. */
function listIds(dialect: DialectName, list: RawBuilder<unknown>): RawBuilder<unknown> {
  return dialect === 'postgres'
    ? sql`select json_array_elements_text(${list}::json)::bigint as v`
    : sql`select value as v from json_each(${list})`;
}

/**
 * The upsert of a batch of rollup parts, built once (db/prepared.ts): a new part is inserted; an existing one gets
 * the count and sums added and the users merged (`mergedUsers`).
 */
export function rollupUpsert<P extends { user_ids_json: string }>(
  shape: RollupShape,
): PreparedRow<NoParams, P[], unknown> {
  const added = (column: string) =>
    sql`${sql.ref(`${shape.table}.${column}`)} + ${sql.ref(`excluded.${column}`)}`;
  // (The columns of either table, for kysely's types.)
  const conflict = ['span', 'bucket', ...shape.keys] as unknown as readonly ['span', 'bucket'];
  return preparedRow((db, _: NoParams, parts: P[]) =>
    db
      .insertInto(shape.table)
      .values(parts as never)
      .onConflict((oc) =>
        oc.columns(conflict).doUpdateSet({
          ...Object.fromEntries(['count', ...shape.sums].map((column) => [column, added(column)])),
          user_ids_json: mergedUsers(shape.table, dialectOf(db)),
        }),
      ),
  );
}

/**
 * The upsert's new user list: the stored one merged with the incoming part's (`excluded.user_ids_json`), both
 * sorted JSON arrays. When every incoming user is already there (the usual case) the stored list stays, found by
 * string matches. One new user (an ask's or a request's own write) is put in its place by text: the first stored id
 * above it is found and the id written before it; no list is sorted again, so a bucket of many users costs one
 * scan of its list. Several new users (a batch) cost a merge. One statement, so concurrent writers cannot lose a
 * user. On SQLite the same merge is a function of the connection (db/user-lists.ts): SQLite reads a list with
 * `json_each` row by row, ~150 µs for 1,000 ids.
 */
export function mergedUsers(table: RollupShape['table'], dialect: DialectName): RawBuilder<string> {
  const stored = sql.ref(`${table}.user_ids_json`);
  const incoming = sql.ref('excluded.user_ids_json');
  if (dialect === 'sqlite') return sql<string>`${sql.raw(MERGED_USERS_FUNCTION)}(${stored}, ${incoming})`;
  // PostgreSQL. `,3,17,42,`: a user is there when `,<id>,` is found in it.
  const commas = sql`(',' || substr(${stored}, 2, length(${stored}) - 2) || ',')`;
  const missing = sql`select 1 from json_array_elements_text(${incoming}::json) as i(v) where strpos(${commas}, ',' || i.v || ',') = 0`;
  const union = sql`${listIds(dialect, stored)} union ${listIds(dialect, incoming)}`;
  // The one incoming id (text), and the first stored id above it (`a`, null: it goes last), read once.
  const id = sql`substr(${incoming}, 2, length(${incoming}) - 2)`;
  const above = sql`select min(v::bigint) as a from json_array_elements_text(${stored}::json) as s(v) where v::bigint > ${id}::bigint`;
  const at = sql`strpos(${commas}, ',' || a || ',')`;
  // `[3,17,42]` with 20: the text up to the comma before 42 (at the same place in `commas`), 20, the rest.
  const inserted = sql`(select case when a is null
      then substr(${stored}, 1, length(${stored}) - 1) || ',' || ${id} || ']'
      else substr(${stored}, 1, p) || ${id} || ',' || substr(${stored}, p + 1) end
    from (select a, ${at} as p from (${above}) x) y)`;
  return sql<string>`case
    when ${incoming} = '[]' then ${stored}
    when ${stored} = '[]' then ${incoming}
    when ${incoming} not like '%,%'
      and ${commas} like '%,' || ${id} || ',%' then ${stored}
    when ${incoming} not like '%,%' then ${inserted}
    when not exists (${missing}) then ${stored}
    else ${sortedList(dialect, union)} end`;
}

/**
 * Log rows grouped by granularity (each of `spans`), bucket and key: each part is one upsert of its count, sums
 * and distinct users (`user_ids_json`, set here from the rows). Parts come out in one fixed order, so concurrent
 * writers lock rollup rows in the same order.
 */
export function rollupParts<
  R extends { time: string; user_id: number | null },
  P extends { user_ids_json: string },
>(
  rows: readonly R[],
  spans: readonly number[],
  keyOf: (row: R) => string,
  init: (span: number, bucket: number, row: R) => P,
  add: (part: P, row: R) => void,
): P[] {
  const parts = new Map<string, { part: P; users: number[] }>();
  for (const row of rows) {
    const key = keyOf(row);
    for (const span of spans) {
      const bucket = rollupBucket(row.time, span);
      const id = `${span}\u0000${bucket}\u0000${key}`;
      let entry = parts.get(id);
      if (!entry) {
        entry = { part: init(span, bucket, row), users: [] };
        parts.set(id, entry);
      }
      add(entry.part, row);
      if (row.user_id !== null) entry.users.push(row.user_id);
    }
  }
  return [...parts.keys()].sort().map((id) => {
    const { part, users } = parts.get(id)!;
    part.user_ids_json = userIdsJson(users);
    return part;
  });
}

/** Rows per multi-row upsert: well under the bound-parameter limits of SQLite (32,766) and PostgreSQL (65,535). */
const UPSERT_ROWS = 1000;

/** Parts (one per rollup row, so no statement updates a row twice) cut into multi-row upserts. */
export function upsertBatches<P>(parts: readonly P[]): P[][] {
  const batches: P[][] = [];
  for (let i = 0; i < parts.length; i += UPSERT_ROWS) batches.push(parts.slice(i, i + UPSERT_ROWS));
  return batches;
}

/**
 * Builds the `span`-second bucket starting at `bucket` from the 30-minute rows inside it (which must be complete):
 * counts and sums added, users merged. The bucket's rows must be gone.
 */
async function rebuildFromFinest(
  db: Executor,
  shape: RollupShape,
  span: number,
  bucket: number,
): Promise<void> {
  const dialect = dialectOf(db);
  const [k1, k2] = shape.keys.map((k) => sql.ref(k));
  const table = sql.table(shape.table);
  const sums = sql.join(shape.sums.map((s) => sql.ref(s)));
  const inside = sql`span = ${ROLLUP_SECONDS} and bucket >= ${bucket} and bucket < ${bucket + span}`;
  // The group's users: the distinct ids of its 30-minute rows' lists.
  const rowsOfGroup = sql`r.span = ${ROLLUP_SECONDS} and r.bucket >= ${bucket} and r.bucket < ${bucket + span}
    and r.${k1} = g.${k1} and r.${k2} = g.${k2}`;
  const ids =
    dialect === 'postgres'
      ? sql`select distinct json_array_elements_text(r.user_ids_json::json)::bigint as v from ${table} r
          where ${rowsOfGroup}`
      : sql`select distinct j.value as v from ${table} r, json_each(r.user_ids_json) j where ${rowsOfGroup}`;
  await sql`insert into ${table} (span, bucket, ${k1}, ${k2}, count, ${sums}, user_ids_json)
    select ${span}, ${bucket}, g.${k1}, g.${k2}, g.count, ${sql.join(shape.sums.map((s) => sql`g.${sql.ref(s)}`))},
      ${sortedList(dialect, ids)}
    from (select ${k1}, ${k2}, sum(count) as count, ${sql.join(shape.sums.map((s) => sql`sum(${sql.ref(s)}) as ${sql.ref(s)}`))}
      from ${table} where ${inside} group by ${k1}, ${k2}) g`.execute(db);
}

/** The ISO bounds of the 30-minute bucket holding the ISO time `time`. */
function rollupBucketBounds(time: string): { bucket: number; start: string; end: string } {
  const bucket = rollupBucket(time);
  return {
    bucket,
    start: new Date(bucket * 1000).toISOString(),
    end: new Date((bucket + ROLLUP_SECONDS) * 1000).toISOString(),
  };
}

/**
 * Deletes the rollups of every level before the log rows' cut `time` (the rows before it already deleted), and
 * builds the buckets holding `time` again from the rows kept: the 30-minute one by `addFinest` from its log rows,
 * the coarser ones from the 30-minute rows.
 */
export async function purgeRollups(
  db: Executor,
  shape: RollupShape,
  time: string,
  addFinest: (start: string, end: string) => Promise<void>,
): Promise<void> {
  for (const span of ROLLUP_SPANS)
    await db
      .deleteFrom(shape.table)
      .where('span', '=', span)
      .where('bucket', '<=', rollupBucket(time, span))
      .execute();
  const edge = rollupBucketBounds(time);
  await addFinest(edge.start, edge.end);
  for (const span of ROLLUP_SPANS)
    if (span !== ROLLUP_SECONDS) await rebuildFromFinest(db, shape, span, rollupBucket(time, span));
}

/*
 * The answer's JSON built in SQL, for the whole buckets of a granularity: one text per bucket, no row per key
 * reaching JavaScript. Its numbers are those JavaScript gives (see jsRounded); their text may differ (`45.0` for
 * `45`) but reads back the same.
 */

/** A JSON string of a text column (escaped by the database). */
export function jsonString(column: string, dialect: DialectName): RawBuilder<string> {
  return dialect === 'postgres'
    ? sql<string>`to_json(${sql.ref(column)})::text`
    : sql<string>`json_quote(${sql.ref(column)})`;
}

/**
 * `Math.round(value * scale) / scale` computed as JavaScript does it (halves up, the same IEEE operations), for a
 * double `value`; `scale` is a power of ten.
 */
export function jsRounded(value: RawBuilder<number>, scale: number): RawBuilder<number> {
  const v = sql`(${value} * ${sql.lit(scale)})`;
  return sql<number>`((case when ${v} - floor(${v}) >= 0.5 then ceil(${v}) else floor(${v}) end) / ${sql.lit(scale)})`;
}

/** Placeholder for `start_time` in a bucket's objects (escaped in any JSON string, so found nowhere else). */
export function startTimeMark(dialect: DialectName): RawBuilder<string> {
  return dialect === 'postgres' ? sql<string>`chr(1)` : sql<string>`char(1)`;
}

/**
 * Per `span`-second bucket in [fromBucket, toBucket) (epoch seconds), in bucket order, the JSON objects of its
 * rows (`object`: one row's, with startTimeMark() for its `start_time`) joined by `,`, keys in code point order
 * (UTF-8 byte order: `collate "C"` on PostgreSQL, SQLite's binary collation).
 */
export async function rollupBucketsJson(
  db: Executor,
  shape: RollupShape,
  object: RawBuilder<string>,
  span: number,
  fromBucket: number,
  toBucket: number,
): Promise<string[]> {
  const dialect = dialectOf(db);
  const [first, second] = shape.keys.map((k) =>
    dialect === 'postgres' ? sql`${sql.ref(k)} collate "C"` : sql.ref(k),
  );
  const joined =
    dialect === 'postgres'
      ? sql`string_agg(${object}, ',' order by ${first}, ${second})`
      : sql`group_concat(${object}, ',' order by ${first}, ${second})`;
  const start =
    dialect === 'postgres'
      ? sql`to_char(to_timestamp(bucket) at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`
      : sql`strftime('%Y-%m-%dT%H:%M:%fZ', bucket, 'unixepoch')`;
  const { rows } = await sql<{
    json: string;
  }>`select replace(${joined}, ${startTimeMark(dialect)}, ${start}) as json
    from ${sql.table(shape.table)} where span = ${span} and bucket >= ${fromBucket} and bucket < ${toBucket}
    group by bucket order by bucket`.execute(db);
  return rows.map((r) => r.json);
}

/** Runs `fn` in a transaction, or in the one `db` already is. */
export function inTransaction<T>(db: Executor, fn: (trx: Executor) => Promise<T>): Promise<T> {
  return db.isTransaction ? fn(db) : db.transaction().execute(fn);
}
