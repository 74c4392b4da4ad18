/** What a chart series measures: each y axis shows one of these. */
export type SeriesUnit = 'asks' | 'users' | 'requests' | 'seconds' | 'milliseconds';

export interface UnitSeries {
  name: string;
  label: string;
  color: string;
  unit: SeriesUnit;
}

/** Counts of different things share an axis only when it is read as a plain number of them. */
const AXIS_OF_UNIT: Record<SeriesUnit, 'count' | 'seconds' | 'milliseconds'> = {
  asks: 'count',
  users: 'count',
  requests: 'count',
  seconds: 'seconds',
  milliseconds: 'milliseconds',
};

export interface ChartAxes {
  /** Series for the chart; those on the right axis carry `yAxisId: 'right'`. */
  series: { name: string; label: string; color: string; yAxisId?: 'right' }[];
  left: 'count' | 'seconds' | 'milliseconds';
  right: 'count' | 'seconds' | 'milliseconds' | null;
}

/**
 * Puts each kind of quantity on its own y axis: the first series' kind on the left, a second kind on the right.
 * A third kind cannot be read off either axis, so it is refused (split the chart instead).
 */
export function chartAxes(series: readonly UnitSeries[]): ChartAxes {
  const kinds = [...new Set(series.map((s) => AXIS_OF_UNIT[s.unit]))];
  if (kinds.length === 0 || kinds.length > 2)
    throw new Error(`a chart holds one or two kinds of value, not ${kinds.length}`);
  const [left, right = null] = kinds as [ChartAxes['left'], ChartAxes['right']?];
  return {
    series: series.map(({ name, label, color, unit }) =>
      AXIS_OF_UNIT[unit] === left
        ? { name, label, color }
        : { name, label, color, yAxisId: 'right' as const },
    ),
    left,
    right,
  };
}
