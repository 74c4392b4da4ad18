import type { AskStatsBucket, RequestStatsBucket, SystemInfo } from '@cc/contracts';
import { ERROR_DETAILS, SOURCES } from '@cc/contracts';
import type { AppContext } from '../app-context';
import { fail } from '../errors/app-error';
import { askLogRepository } from '../repositories/ask-log.repository';
import { conversationRepository } from '../repositories/conversation.repository';
import { requestLogRepository } from '../repositories/request-log.repository';
import { ROLLUP_SECONDS, unpackUsers } from '../repositories/stats-rollup';
import { userRepository } from '../repositories/user.repository';

const DAY_MS = 86_400_000;
/** The widest range one statistics call may cover. */
const MAX_RANGE_DAYS = 366;
const MAX_RANGE_MS = MAX_RANGE_DAYS * DAY_MS;

export interface StatsRangeInput {
  /** Bucket size, seconds (one of STATS_GRANULARITIES). */
  granularity: number;
  /** ISO start (inclusive); default 24 h before the end. */
  start_time?: string;
  /** ISO end (exclusive); default now. */
  end_time?: string;
}

/** The query range as ISO UTC strings, comparable with the stored `time` columns. */
export function statsRange(input: Pick<StatsRangeInput, 'start_time' | 'end_time'>): {
  start: string;
  end: string;
} {
  const end = input.end_time ? Date.parse(input.end_time) : Date.now();
  const start = input.start_time ? Date.parse(input.start_time) : end - DAY_MS;
  if (!(start < end)) throw fail.invalidParams(ERROR_DETAILS.statsRangeOrder);
  if (end - start > MAX_RANGE_MS)
    throw fail.invalidParams(ERROR_DETAILS.statsRangeTooLong, { days: MAX_RANGE_DAYS });
  return { start: new Date(start).toISOString(), end: new Date(end).toISOString() };
}

const ROLLUP_MS = ROLLUP_SECONDS * 1000;
const iso = (ms: number) => new Date(ms).toISOString();
/** Sums of timings stored to the millisecond: rounding drops the float noise of adding them up. */
const round3 = (n: number) => Math.round(n * 1000) / 1000;

/**
 * Splits [start, end) into the whole rollup buckets inside it (epoch seconds, read from the rollups) and the
 * partial buckets at its edges (ISO ranges, read from the log rows, at most 30 minutes each).
 */
function splitRange(start: string, end: string): { rollups: [number, number] | null; rows: string[][] } {
  const s = Date.parse(start);
  const e = Date.parse(end);
  const first = Math.ceil(s / ROLLUP_MS) * ROLLUP_MS;
  const last = Math.floor(e / ROLLUP_MS) * ROLLUP_MS;
  if (first >= last) return { rollups: null, rows: [[start, end]] };
  const rows: string[][] = [];
  if (s < first) rows.push([start, iso(first)]);
  if (last < e) rows.push([iso(last), end]);
  return { rollups: [first / 1000, last / 1000], rows };
}

interface Entry<G> {
  group: G;
  /** User ids as added (a rollup's list, or one row's user): made distinct and sorted at the end. */
  users: number[];
  /** How many lists and rows fed `users`: with one list only, it is already distinct. */
  parts: number;
}

/** Ascending, without repeats (`distinct`: known to hold no repeats). Sorted as 32-bit integers, natively. */
function sortedIds(users: number[], distinct: boolean): number[] {
  const sorted = Int32Array.from(users).sort();
  if (distinct) return Array.from(sorted);
  const out: number[] = [];
  for (let i = 0; i < sorted.length; i++) if (i === 0 || sorted[i] !== sorted[i - 1]) out.push(sorted[i]!);
  return out;
}

/**
 * Groups per bucket of the granularity (floored to a multiple of it since the UTC epoch) and key, with the
 * distinct users. Groups come out in ascending bucket order, then by key.
 */
function grouper<G extends { user_ids: number[] }>(granularity: number) {
  const size = granularity * 1000;
  const buckets = new Map<number, Map<string, Entry<G>>>();
  return {
    /** The group of the bucket holding `ms` (epoch ms) and `key`, made by `init(bucketStart)` when new. */
    at(ms: number, key: string, init: (start: string) => G, parts = 1): Entry<G> {
      const startMs = ms - (((ms % size) + size) % size);
      let bucket = buckets.get(startMs);
      if (!bucket) {
        bucket = new Map();
        buckets.set(startMs, bucket);
      }
      let entry = bucket.get(key);
      if (!entry) {
        entry = { group: init(iso(startMs)), users: [], parts: 0 };
        bucket.set(key, entry);
      }
      entry.parts += parts;
      return entry;
    },
    done(): G[] {
      const out: G[] = [];
      for (const startMs of [...buckets.keys()].sort((a, b) => a - b)) {
        const bucket = buckets.get(startMs)!;
        for (const key of [...bucket.keys()].sort()) {
          const entry = bucket.get(key)!;
          entry.group.user_ids = sortedIds(entry.users, entry.parts === 1);
          out.push(entry.group);
        }
      }
      return out;
    },
  };
}

/**
 * Request counts, users and mean elapsed time per bucket, route and method: whole 30-minute buckets from the
 * rollups, the partial ones at the range's edges from the log rows.
 */
export async function requestStats(ctx: AppContext, input: StatsRangeInput): Promise<RequestStatsBucket[]> {
  const { start, end } = statsRange(input);
  const repo = requestLogRepository(ctx.dbHandle.db);
  const split = splitRange(start, end);
  const [rollups, ...edges] = await Promise.all([
    split.rollups ? repo.listRollups(...split.rollups, input.granularity, ctx.dbHandle.dialect) : [],
    ...split.rows.map(([s, e]) => repo.listForStats(s!, e!)),
  ]);
  const totals = new WeakMap<RequestStatsBucket, number>();
  const groups = grouper<RequestStatsBucket>(input.granularity);
  /** A regrouped rollup row's list may repeat users (it joins several buckets' lists). */
  const lists = input.granularity > ROLLUP_SECONDS ? 2 : 1;
  const at = (ms: number, routePath: string, method: string, parts?: number) =>
    groups.at(
      ms,
      `${routePath}\u0000${method}`,
      (s) => ({
        _id: { start_time: s, route_path: routePath, method },
        count: 0,
        user_ids: [],
        avg_elapsed_ms: 0,
      }),
      parts,
    );
  for (const r of rollups) {
    const { group, users } = at(Number(r.start) * 1000, r.route_path, r.method, lists);
    group.count += Number(r.count);
    totals.set(group, (totals.get(group) ?? 0) + Number(r.total_elapsed_ms));
    unpackUsers(r.user_ids, users);
  }
  for (const r of edges.flat()) {
    const { group, users } = at(Date.parse(r.time), r.route_path, r.method);
    group.count += 1;
    totals.set(group, (totals.get(group) ?? 0) + Number(r.elapsed_ms));
    if (r.user_id !== null) users.push(r.user_id);
  }
  const result = groups.done();
  for (const g of result) g.avg_elapsed_ms = Math.round(((totals.get(g) ?? 0) / g.count) * 100) / 100;
  return result;
}

/**
 * Ask counts, users and summed queueing and answering time per bucket, source and model: whole 30-minute buckets
 * from the rollups, the partial ones at the range's edges from the log rows.
 */
export async function askStats(ctx: AppContext, input: StatsRangeInput): Promise<AskStatsBucket[]> {
  const { start, end } = statsRange(input);
  const repo = askLogRepository(ctx.dbHandle.db);
  const split = splitRange(start, end);
  const [rollups, ...edges] = await Promise.all([
    split.rollups ? repo.listRollups(...split.rollups, input.granularity, ctx.dbHandle.dialect) : [],
    ...split.rows.map(([s, e]) => repo.listForStats(s!, e!)),
  ]);
  const groups = grouper<AskStatsBucket>(input.granularity);
  /** A regrouped rollup row's list may repeat users (it joins several buckets' lists). */
  const lists = input.granularity > ROLLUP_SECONDS ? 2 : 1;
  const at = (ms: number, source: string, model: string, parts?: number) =>
    groups.at(
      ms,
      `${source}\u0000${model}`,
      (s) => ({
        _id: { start_time: s, meta: { source, model } },
        count: 0,
        user_ids: [],
        total_ask_time: 0,
        total_queueing_time: 0,
      }),
      parts,
    );
  for (const r of rollups) {
    const { group, users } = at(Number(r.start) * 1000, r.source, r.model, lists);
    group.count += Number(r.count);
    group.total_ask_time += Number(r.total_ask_time);
    group.total_queueing_time += Number(r.total_queueing_time);
    unpackUsers(r.user_ids, users);
  }
  for (const r of edges.flat()) {
    const { group, users } = at(Date.parse(r.time), r.source, r.model);
    group.count += 1;
    group.total_ask_time += Number(r.ask_time);
    group.total_queueing_time += Number(r.queueing_time);
    if (r.user_id !== null) users.push(r.user_id);
  }
  const result = groups.done();
  for (const g of result) {
    g.total_ask_time = round3(g.total_ask_time);
    g.total_queueing_time = round3(g.total_queueing_time);
  }
  return result;
}

/** Startup time, users and conversations (both sources, and per source). Counts run in SQL, never row loads. */
export async function systemInfo(ctx: AppContext): Promise<SystemInfo> {
  const db = ctx.dbHandle.db;
  const repo = conversationRepository(db);
  const bySource = Object.fromEntries(
    await Promise.all(SOURCES.map(async (s) => [s, await repo.counts(s)] as const)),
  ) as SystemInfo['conversations_by_source'];
  const all = Object.values(bySource);
  // Configuring a source at run time takes it off the emulator; with none left, it is no longer demo mode.
  const demoSources = ctx.demo ? SOURCES.filter((s) => ctx.upstream.isDemo(s)) : [];
  return {
    startup_time: ctx.startupTime,
    total_user_count: await userRepository(db).count(),
    total_conversation_count: all.reduce((n, c) => n + c.total, 0),
    valid_conversation_count: all.reduce((n, c) => n + c.valid, 0),
    conversations_by_source: bySource,
    demo:
      ctx.demo && demoSources.length ? { sources: demoSources, emulator_url: ctx.demo.emulator.url } : null,
  };
}
