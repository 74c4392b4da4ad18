import type { SystemInfo } from '@cc/contracts';
import { ERROR_DETAILS, SOURCES } from '@cc/contracts';
import type { AppContext } from '../app-context';
import { fail } from '../errors/app-error';
import { askLogRepository } from '../repositories/ask-log.repository';
import { conversationRepository } from '../repositories/conversation.repository';
import { requestLogRepository } from '../repositories/request-log.repository';
import { ROLLUP_SECONDS } from '../repositories/stats-rollup';
import { userRepository } from '../repositories/user.repository';
import { StatsBucketsWriter, jsonArray } from './stats-json';

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
const quote = (s: string) => JSON.stringify(s);

/**
 * How one kind of statistics reads its rollups and log rows and writes its buckets (requests: route and method,
 * one sum; asks: source and model, two sums).
 */
interface StatsKind<Rollup, Row> {
  /** The answer's objects per whole bucket of `span` seconds, built by the database. */
  rollupsJson(span: number, fromBucket: number, toBucket: number): Promise<string[]>;
  /** 30-minute rollup rows, in bucket order. */
  rollups(fromBucket: number, toBucket: number): Promise<Rollup[]>;
  /** Log rows in [start, end), in time order. */
  rows(start: string, end: string): Promise<Row[]>;
  writer(granularity: number): StatsBucketsWriter;
  addRollup(writer: StatsBucketsWriter, rollup: Rollup): void;
  addRow(writer: StatsBucketsWriter, row: Row): void;
}

/**
 * The objects of a part of the range lying within one bucket of the granularity (epoch ms [s, e)), put together
 * here: the whole 30-minute buckets inside it from their rollups, the rest from the log rows (at most 30 minutes
 * at each end).
 */
async function partialBucket<Rollup, Row>(
  kind: StatsKind<Rollup, Row>,
  granularity: number,
  s: number,
  e: number,
): Promise<string> {
  const first = Math.ceil(s / ROLLUP_MS) * ROLLUP_MS;
  const last = Math.floor(e / ROLLUP_MS) * ROLLUP_MS;
  const whole = first < last;
  const [before, rollups, after] = await Promise.all([
    !whole ? kind.rows(iso(s), iso(e)) : s < first ? kind.rows(iso(s), iso(first)) : [],
    whole ? kind.rollups(first / 1000, last / 1000) : [],
    whole && last < e ? kind.rows(iso(last), iso(e)) : [],
  ]);
  const writer = kind.writer(granularity);
  for (const row of before) kind.addRow(writer, row);
  for (const rollup of rollups) kind.addRollup(writer, rollup);
  for (const row of after) kind.addRow(writer, row);
  return writer.done();
}

/**
 * The JSON text of the answer's buckets for the range: the whole buckets of the granularity from its own rollup
 * level, as the database writes them; the partial buckets at the range's edges put together here.
 */
async function statsJson<Rollup, Row>(kind: StatsKind<Rollup, Row>, input: StatsRangeInput): Promise<string> {
  const { start, end } = statsRange(input);
  const g = input.granularity;
  const size = g * 1000;
  const s = Date.parse(start);
  const e = Date.parse(end);
  const first = Math.ceil(s / size) * size;
  const last = Math.floor(e / size) * size;
  if (first >= last) return jsonArray([await partialBucket(kind, g, s, e)]);
  const [head, whole, tail] = await Promise.all([
    s < first ? partialBucket(kind, g, s, first) : '',
    kind.rollupsJson(g, first / 1000, last / 1000),
    last < e ? partialBucket(kind, g, last, e) : '',
  ]);
  return jsonArray([head, ...whole, tail]);
}

/**
 * Request counts, users and mean elapsed time per bucket, route and method, as the JSON text of the answer (a
 * RequestStatsBucket[]).
 */
export function requestStatsJson(ctx: AppContext, input: StatsRangeInput): Promise<string> {
  const repo = requestLogRepository(ctx.dbHandle.db);
  return statsJson(
    {
      rollupsJson: (span, from, to) => repo.rollupsJson(span, from, to),
      rollups: (from, to) => repo.listRollups(from, to),
      rows: (from, to) => repo.listForStats(from, to),
      writer: (granularity) =>
        new StatsBucketsWriter(
          granularity,
          (routePath, method) => `,"route_path":${quote(routePath)},"method":${quote(method)}},"count":`,
          (g) => `"avg_elapsed_ms":${Math.round((g.sum1 / g.count) * 100) / 100}`,
        ),
      addRollup(writer, r) {
        const g = writer.at(Number(r.bucket) * 1000, r.route_path, r.method);
        g.count += Number(r.count);
        g.sum1 += Number(r.total_elapsed_ms);
        g.lists.push(r.user_ids_json);
      },
      addRow(writer, r) {
        const g = writer.at(Date.parse(r.time), r.route_path, r.method);
        g.count += 1;
        g.sum1 += Number(r.elapsed_ms);
        if (r.user_id !== null) g.users.push(r.user_id);
      },
    },
    input,
  );
}

/**
 * Ask counts, users and summed queueing and answering time per bucket, source and model, as the JSON text of the
 * answer (an AskStatsBucket[]).
 */
export function askStatsJson(ctx: AppContext, input: StatsRangeInput): Promise<string> {
  const repo = askLogRepository(ctx.dbHandle.db);
  return statsJson(
    {
      rollupsJson: (span, from, to) => repo.rollupsJson(span, from, to),
      rollups: (from, to) => repo.listRollups(from, to),
      rows: (from, to) => repo.listForStats(from, to),
      writer: (granularity) =>
        new StatsBucketsWriter(
          granularity,
          (source, model) => `,"meta":{"source":${quote(source)},"model":${quote(model)}}},"count":`,
          (g) => `"total_ask_time":${round3(g.sum1)},"total_queueing_time":${round3(g.sum2)}`,
        ),
      addRollup(writer, r) {
        const g = writer.at(Number(r.bucket) * 1000, r.source, r.model);
        g.count += Number(r.count);
        g.sum1 += Number(r.total_ask_time);
        g.sum2 += Number(r.total_queueing_time);
        g.lists.push(r.user_ids_json);
      },
      addRow(writer, r) {
        const g = writer.at(Date.parse(r.time), r.source, r.model);
        g.count += 1;
        g.sum1 += Number(r.ask_time);
        g.sum2 += Number(r.queueing_time);
        if (r.user_id !== null) g.users.push(r.user_id);
      },
    },
    input,
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
