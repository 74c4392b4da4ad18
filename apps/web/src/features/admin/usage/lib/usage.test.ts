import { describe, expect, it } from 'vitest';
import type { UsageRow } from '@cc/contracts';
import { usageSeries } from './usage';

const row = (day: string, asks: number, input: number, output: number): UsageRow => ({
  user_id: null,
  username: null,
  source: null,
  model: null,
  day,
  asks,
  input_tokens: input,
  output_tokens: output,
  estimated_asks: 0,
  avg_queue_seconds: 0,
  avg_answer_seconds: 0,
  errors: 0,
  cost: 0,
});

describe('usage chart series', () => {
  it('has one point per UTC day of the range, zero where nobody asked', () => {
    const points = usageSeries(
      [row('2026-03-01', 2, 10, 100), row('2026-03-03', 1, 5, 50)],
      '2026-03-01T00:00:00.000Z',
      '2026-03-04T00:00:00.000Z',
    );
    expect(points).toEqual([
      { day: '2026-03-01', asks: 2, input_tokens: 10, output_tokens: 100 },
      { day: '2026-03-02', asks: 0, input_tokens: 0, output_tokens: 0 },
      { day: '2026-03-03', asks: 1, input_tokens: 5, output_tokens: 50 },
    ]);
  });

  it('a range starting mid-day includes that day', () => {
    const points = usageSeries([], '2026-03-01T15:00:00.000Z', '2026-03-02T10:00:00.000Z');
    expect(points.map((p) => p.day)).toEqual(['2026-03-01', '2026-03-02']);
  });
});
