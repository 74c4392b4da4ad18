import type { AskStatsBucket, RequestStatsBucket, SystemInfo } from '@cc/contracts';
import { ERROR_DETAILS, SOURCES } from '@cc/contracts';
import type { AppContext } from '../app-context';
import { fail } from '../errors/app-error';
import { askLogRepository } from '../repositories/ask-log.repository';
import { conversationRepository } from '../repositories/conversation.repository';
import { requestLogRepository } from '../repositories/request-log.repository';
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

/** Start of the bucket holding `time`: floored to a multiple of the granularity since the UTC epoch. */
export function bucketStart(time: string, granularitySeconds: number): string {
  const ms = Date.parse(time);
  const size = granularitySeconds * 1000;
  return new Date(ms - (((ms % size) + size) % size)).toISOString();
}

/**
 * Buckets rows in JS: the range is read on the indexed `time` column with only the needed columns, which keeps
 * the query identical on SQLite and PostgreSQL. Groups come out in ascending bucket order, then by key.
 */
function groupRows<R extends { time: string; user_id: number | null }, G extends { user_ids: number[] }>(
  rows: R[],
  granularity: number,
  keyOf: (row: R) => string,
  init: (start: string, row: R) => G,
  add: (group: G, row: R) => void,
): G[] {
  const groups = new Map<string, { key: string; group: G; users: Set<number> }>();
  for (const row of rows) {
    const start = bucketStart(row.time, granularity);
    const key = `${start}\u0000${keyOf(row)}`;
    let entry = groups.get(key);
    if (!entry) {
      entry = { key, group: init(start, row), users: new Set() };
      groups.set(key, entry);
    }
    if (row.user_id !== null) entry.users.add(row.user_id);
    add(entry.group, row);
  }
  return [...groups.values()]
    .sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0))
    .map((e) => {
      e.group.user_ids = [...e.users].sort((a, b) => a - b);
      return e.group;
    });
}

/** Request counts, users and mean elapsed time per bucket, route and method. */
export async function requestStats(ctx: AppContext, input: StatsRangeInput): Promise<RequestStatsBucket[]> {
  const { start, end } = statsRange(input);
  const rows = await requestLogRepository(ctx.dbHandle.db).listForStats(start, end);
  const totals = new WeakMap<RequestStatsBucket, number>();
  const groups = groupRows(
    rows,
    input.granularity,
    (r) => `${r.route_path}\u0000${r.method}`,
    (s, r): RequestStatsBucket => ({
      _id: { start_time: s, route_path: r.route_path, method: r.method },
      count: 0,
      user_ids: [],
      avg_elapsed_ms: 0,
    }),
    (g, r) => {
      g.count += 1;
      totals.set(g, (totals.get(g) ?? 0) + Number(r.elapsed_ms));
    },
  );
  for (const g of groups) g.avg_elapsed_ms = Math.round(((totals.get(g) ?? 0) / g.count) * 100) / 100;
  return groups;
}

/** Ask counts, users and summed queueing and answering time per bucket, source and model. */
export async function askStats(ctx: AppContext, input: StatsRangeInput): Promise<AskStatsBucket[]> {
  const { start, end } = statsRange(input);
  const rows = await askLogRepository(ctx.dbHandle.db).listForStats(start, end);
  return groupRows(
    rows,
    input.granularity,
    (r) => `${r.source}\u0000${r.model}`,
    (s, r): AskStatsBucket => ({
      _id: { start_time: s, meta: { source: r.source, model: r.model } },
      count: 0,
      user_ids: [],
      total_ask_time: 0,
      total_queueing_time: 0,
    }),
    (g, r) => {
      g.count += 1;
      g.total_ask_time += Number(r.ask_time);
      g.total_queueing_time += Number(r.queueing_time);
    },
  );
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
