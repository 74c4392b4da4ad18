import { sql } from 'kysely';
import type { RawBuilder } from 'kysely';
import type { DialectName } from '../db/client';
import type { Executor } from './executor';

/**
 * Statistics rollups (`ask_stats_rollups`, `request_stats_rollups`): per 30-minute bucket and key, the row count,
 * summed timings and the distinct users packed as `,3,17,42,` (`,` for none). Every statistics granularity is a
 * multiple of the bucket, so whole buckets regroup exactly into any of them.
 */
export const ROLLUP_SECONDS = 1800;
const ROLLUP_MS = ROLLUP_SECONDS * 1000;

/** Start (epoch seconds, UTC) of the rollup bucket holding the ISO time `time`. */
export function rollupBucket(time: string): number {
  return Math.floor(Date.parse(time) / ROLLUP_MS) * ROLLUP_SECONDS;
}

/**
 * The start (epoch seconds) of the `granularity`-second bucket holding a rollup row, for regrouping in SQL. The
 * granularity is a multiple of the rollup bucket (checked: it goes into the SQL text, as the same literal in the
 * select list and the GROUP BY).
 */
export function regroupedBucket(granularity: number): RawBuilder<number> {
  if (!Number.isInteger(granularity) || granularity <= 0 || granularity % ROLLUP_SECONDS !== 0)
    throw new Error(`granularity ${granularity} is not a multiple of ${ROLLUP_SECONDS}`);
  return sql<number>`bucket - bucket % ${sql.lit(granularity)}`;
}

/** The packed user lists of regrouped rollup rows, concatenated (`,1,2,,2,5,`: repeats left to the reader). */
export function concatenatedUsers(dialect: DialectName): RawBuilder<string> {
  return dialect === 'postgres'
    ? sql<string>`string_agg(user_ids, '')`
    : sql<string>`group_concat(user_ids, '')`;
}

/** A packed user list holding only `userId` (`,` for no user). */
export function packUser(userId: number | null): string {
  return userId === null ? ',' : `,${userId},`;
}

/** Appends the users of a packed list (`,3,17,`) to `into`. */
export function unpackUsers(list: string, into: number[]): void {
  let n = 0;
  let digits = false;
  for (let i = 1; i < list.length; i++) {
    const c = list.charCodeAt(i);
    if (c === 44) {
      if (digits) into.push(n);
      n = 0;
      digits = false;
    } else {
      n = n * 10 + (c - 48);
      digits = true;
    }
  }
}

/**
 * The upsert's new packed user list: the stored one, with the incoming row's single user (`excluded.user_ids`)
 * appended unless it is already there. One statement, so concurrent writers cannot lose a user.
 */
export function mergedUsers(table: 'ask_stats_rollups' | 'request_stats_rollups'): RawBuilder<string> {
  const stored = sql.ref(`${table}.user_ids`);
  return sql<string>`case when excluded.user_ids = ',' or ${stored} like '%' || excluded.user_ids || '%'
    then ${stored} else ${stored} || substr(excluded.user_ids, 2) end`;
}

/**
 * Log rows grouped by rollup bucket, key and user: each part is one upsert of its count and sums, carrying its
 * one user (the same bucket and key can take several parts, one per user).
 */
export function rollupParts<R extends { time: string; user_id: number | null }, P>(
  rows: readonly R[],
  keyOf: (row: R) => string,
  init: (bucket: number, row: R) => P,
  add: (part: P, row: R) => void,
): P[] {
  const parts = new Map<string, P>();
  for (const row of rows) {
    const bucket = rollupBucket(row.time);
    const id = `${bucket}\u0000${keyOf(row)}\u0000${row.user_id ?? ''}`;
    let part = parts.get(id);
    if (!part) {
      part = init(bucket, row);
      parts.set(id, part);
    }
    add(part, row);
  }
  return [...parts.values()];
}

/** Rows per multi-row upsert: well under the bound-parameter limits of SQLite (32,766) and PostgreSQL (65,535). */
const UPSERT_ROWS = 1000;

/**
 * Parts split into multi-row upserts: within one statement no two parts may update the same rollup row (named by
 * `rowOf`), so the k-th part of each row goes to the k-th round; rounds are cut to UPSERT_ROWS.
 */
export function upsertBatches<P>(parts: readonly P[], rowOf: (part: P) => string): P[][] {
  const rounds: P[][] = [];
  const placed = new Map<string, number>();
  for (const part of parts) {
    const id = rowOf(part);
    const k = placed.get(id) ?? 0;
    placed.set(id, k + 1);
    (rounds[k] ??= []).push(part);
  }
  const batches: P[][] = [];
  for (const round of rounds)
    for (let i = 0; i < round.length; i += UPSERT_ROWS) batches.push(round.slice(i, i + UPSERT_ROWS));
  return batches;
}

/** The ISO bounds of the rollup bucket holding the ISO time `time`. */
export function rollupBucketBounds(time: string): { bucket: number; start: string; end: string } {
  const bucket = rollupBucket(time);
  return {
    bucket,
    start: new Date(bucket * 1000).toISOString(),
    end: new Date((bucket + ROLLUP_SECONDS) * 1000).toISOString(),
  };
}

/** Runs `fn` in a transaction, or in the one `db` already is. */
export function inTransaction<T>(db: Executor, fn: (trx: Executor) => Promise<T>): Promise<T> {
  return db.isTransaction ? fn(db) : db.transaction().execute(fn);
}
