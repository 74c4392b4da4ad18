import { describe, expect, it } from 'vitest';
import { askChartData, requestChartData, seriesKey, uptimeHours } from './stats';

const t0 = '2026-06-01T00:00:00Z';
const t1 = '2026-06-01T01:00:00Z';

describe('askChartData', () => {
  it('pivots buckets into one column per source:model with zero-filled rows and totals', () => {
    const data = askChartData([
      {
        _id: { start_time: t1, meta: { source: 'openai_web', model: 'gpt_4' } },
        count: 2,
        user_ids: [1, 2],
        total_ask_time: 10,
        total_queueing_time: 4,
      },
      {
        _id: { start_time: t0, meta: { source: 'openai_api', model: 'gpt_3_5' } },
        count: 1,
        user_ids: [1],
        total_ask_time: 3,
        total_queueing_time: 0,
      },
      {
        _id: { start_time: t1, meta: { source: 'openai_api', model: 'gpt_3_5' } },
        count: 2,
        user_ids: [2],
        total_ask_time: 2,
        total_queueing_time: 2,
      },
    ]);
    expect(data.series.map((s) => s.key)).toEqual(['openai_api:gpt_3_5', 'openai_web:gpt_4']);
    expect(data.counts).toEqual([
      { time: Date.parse(t0), 'openai_api:gpt_3_5': 1, 'openai_web:gpt_4': 0 },
      { time: Date.parse(t1), 'openai_api:gpt_3_5': 2, 'openai_web:gpt_4': 2 },
    ]);
    expect(data.totals[1]).toEqual({
      time: Date.parse(t1),
      count: 4,
      users: 2,
      avgAskSeconds: 3,
      avgQueueSeconds: 1.5,
    });
  });

  it('keeps dots out of series keys', () => {
    expect(seriesKey('openai_api', 'gpt-3.5')).toBe('openai_api:gpt-3_5');
  });
});

describe('requestChartData', () => {
  it('sums per bucket and per route with a count-weighted average', () => {
    const data = requestChartData([
      {
        _id: { start_time: t0, route_path: '/api/conv', method: 'GET' },
        count: 3,
        user_ids: [1],
        avg_elapsed_ms: 10,
      },
      {
        _id: { start_time: t0, route_path: '/api/user', method: 'GET' },
        count: 1,
        user_ids: [2],
        avg_elapsed_ms: 50,
      },
      {
        _id: { start_time: t1, route_path: '/api/conv', method: 'GET' },
        count: 1,
        user_ids: [1],
        avg_elapsed_ms: 30,
      },
    ]);
    expect(data.totals).toEqual([
      { time: Date.parse(t0), count: 4, users: 2, avgElapsedMs: 20 },
      { time: Date.parse(t1), count: 1, users: 1, avgElapsedMs: 30 },
    ]);
    expect(data.routes[0]).toEqual({ route: 'GET /api/conv', count: 4, users: 1, avgElapsedMs: 15 });
  });
});

it('computes the uptime in hours', () => {
  expect(uptimeHours(t0, Date.parse(t1) + 30 * 60_000)).toBe(1.5);
});
