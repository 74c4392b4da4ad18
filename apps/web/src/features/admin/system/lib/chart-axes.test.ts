import { describe, expect, it } from 'vitest';
import { chartAxes } from './chart-axes';

describe('chartAxes', () => {
  it('puts users on one axis and seconds on the other', () => {
    const axes = chartAxes([
      { name: 'users', label: 'Users', color: 'blue.6', unit: 'users' },
      { name: 'avgAskSeconds', label: 'Ask time (s)', color: 'teal.6', unit: 'seconds' },
      { name: 'avgQueueSeconds', label: 'Queue time (s)', color: 'orange.6', unit: 'seconds' },
    ]);
    expect(axes.left).toBe('count');
    expect(axes.right).toBe('seconds');
    expect(axes.series.map((s) => [s.name, s.yAxisId ?? 'left'])).toEqual([
      ['users', 'left'],
      ['avgAskSeconds', 'right'],
      ['avgQueueSeconds', 'right'],
    ]);
  });

  it('keeps one kind on the left only, and refuses a third kind', () => {
    expect(chartAxes([{ name: 'a', label: 'A', color: 'x', unit: 'asks' }])).toMatchObject({
      left: 'count',
      right: null,
    });
    expect(() =>
      chartAxes([
        { name: 'a', label: 'A', color: 'x', unit: 'requests' },
        { name: 'b', label: 'B', color: 'x', unit: 'seconds' },
        { name: 'c', label: 'C', color: 'x', unit: 'milliseconds' },
      ]),
    ).toThrow();
  });
});
