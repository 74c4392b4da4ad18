import type { UsageRow } from '@cc/contracts';

/** One point of the usage chart: a UTC day with its asks and tokens; days without asks are zero. */
export interface UsagePoint {
  day: string;
  asks: number;
  input_tokens: number;
  output_tokens: number;
}

const DAY_MS = 86_400_000;

/** The day rows of a report as a continuous series from the first to the last day of the range (UTC). */
export function usageSeries(rows: readonly UsageRow[], start: string, end: string): UsagePoint[] {
  const byDay = new Map(rows.filter((r) => r.day).map((r) => [r.day!, r]));
  const first = Date.parse(`${start.slice(0, 10)}T00:00:00Z`);
  const last = Date.parse(end) - 1;
  const points: UsagePoint[] = [];
  // At most a year and a day of points (the server refuses longer ranges).
  for (let t = first; t <= last && points.length <= 367; t += DAY_MS) {
    const day = new Date(t).toISOString().slice(0, 10);
    const row = byDay.get(day);
    points.push({
      day,
      asks: row?.asks ?? 0,
      input_tokens: row?.input_tokens ?? 0,
      output_tokens: row?.output_tokens ?? 0,
    });
  }
  return points;
}

/** A whole number with the reader's grouping (12,345). */
export function formatCount(n: number, language: string): string {
  return new Intl.NumberFormat(language).format(n);
}

/** Seconds with at most two decimals. */
export function formatSeconds(n: number, language: string): string {
  return new Intl.NumberFormat(language, { maximumFractionDigits: 2 }).format(n);
}
