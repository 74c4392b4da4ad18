import type { AskStatsBucket, RequestStatsBucket } from '@cc/contracts';
import { parseTime } from '../../../../lib/format';

/** One point of a chart: `time` is the bucket start (ms), the rest are series values. */
export type ChartRow = { time: number } & Record<string, number>;

export interface AskChartData {
  /** Asks per bucket, one column per `source:model` series. */
  counts: ChartRow[];
  /** Per bucket: distinct users, average ask and queueing seconds over all series. */
  totals: ChartRow[];
  series: { key: string; source: string; model: string }[];
}

const ms = (iso: string) => parseTime(iso)?.getTime() ?? 0;

/** Series keys must not contain dots (charts read dotted keys as paths). */
export function seriesKey(source: string, model: string): string {
  return `${source}:${model}`.replace(/\./g, '_');
}

export function askChartData(buckets: readonly AskStatsBucket[]): AskChartData {
  const byTime = new Map<
    number,
    { row: ChartRow; users: Set<number>; ask: number; queue: number; count: number }
  >();
  const series = new Map<string, { key: string; source: string; model: string }>();
  for (const b of buckets) {
    const time = ms(b._id.start_time);
    const key = seriesKey(b._id.meta.source, b._id.meta.model);
    series.set(key, { key, source: b._id.meta.source, model: b._id.meta.model });
    const entry = byTime.get(time) ?? { row: { time }, users: new Set(), ask: 0, queue: 0, count: 0 };
    entry.row[key] = (entry.row[key] ?? 0) + b.count;
    for (const id of b.user_ids) entry.users.add(id);
    entry.ask += b.total_ask_time;
    entry.queue += b.total_queueing_time;
    entry.count += b.count;
    byTime.set(time, entry);
  }
  const keys = [...series.keys()].sort();
  const times = [...byTime.keys()].sort((a, b) => a - b);
  return {
    series: keys.map((k) => series.get(k)!),
    counts: times.map((time) => {
      const row = byTime.get(time)!.row;
      for (const k of keys) row[k] ??= 0;
      return row;
    }),
    totals: times.map((time) => {
      const e = byTime.get(time)!;
      return {
        time,
        count: e.count,
        users: e.users.size,
        avgAskSeconds: e.count ? round(e.ask / e.count) : 0,
        avgQueueSeconds: e.count ? round(e.queue / e.count) : 0,
      };
    }),
  };
}

export interface RouteSummary {
  route: string;
  count: number;
  users: number;
  /** Average elapsed ms over the whole range, weighted by count. */
  avgElapsedMs: number;
}

export interface RequestChartData {
  /** Per bucket: requests and distinct users over all routes. */
  totals: ChartRow[];
  /** Per route over the range, busiest first. */
  routes: RouteSummary[];
}

export function requestChartData(buckets: readonly RequestStatsBucket[]): RequestChartData {
  const byTime = new Map<number, { count: number; users: Set<number>; elapsed: number }>();
  const byRoute = new Map<string, { count: number; users: Set<number>; elapsed: number }>();
  for (const b of buckets) {
    const time = ms(b._id.start_time);
    const route = `${b._id.method} ${b._id.route_path}`;
    for (const [map, key] of [
      [byTime, time],
      [byRoute, route],
    ] as const) {
      const entry = (map as Map<typeof key, { count: number; users: Set<number>; elapsed: number }>).get(
        key,
      ) ?? {
        count: 0,
        users: new Set<number>(),
        elapsed: 0,
      };
      entry.count += b.count;
      entry.elapsed += b.avg_elapsed_ms * b.count;
      for (const id of b.user_ids) entry.users.add(id);
      (map as Map<typeof key, typeof entry>).set(key, entry);
    }
  }
  return {
    totals: [...byTime.entries()]
      .sort(([a], [b]) => a - b)
      .map(([time, e]) => ({
        time,
        count: e.count,
        users: e.users.size,
        avgElapsedMs: e.count ? round(e.elapsed / e.count) : 0,
      })),
    routes: [...byRoute.entries()]
      .map(([route, e]) => ({
        route,
        count: e.count,
        users: e.users.size,
        avgElapsedMs: e.count ? round(e.elapsed / e.count) : 0,
      }))
      .sort((a, b) => b.count - a.count),
  };
}

function round(value: number): number {
  return Math.round(value * 10) / 10;
}

/** Hours since startup, one decimal. */
export function uptimeHours(startup: string, now = Date.now()): number {
  return Math.round(((now - ms(startup)) / 3_600_000) * 10) / 10;
}
