import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { STATS_GRANULARITIES } from '@cc/contracts';
import type { AskStatsBucket, RequestStatsBucket } from '@cc/contracts';
import type { AppContext } from '../app-context';
import { openDb } from '../db/client';
import { prepareSchema } from '../db/migrate';
import type { AnyDb } from '../db/migrations/helpers';
import type { AskLogsTable, RequestLogsTable } from '../db/schema';
import { askLogRepository } from '../repositories/ask-log.repository';
import { requestLogRepository } from '../repositories/request-log.repository';
import { ADMIN, createTestApp, freshDatabase } from '../test/harness';
import type { TestApp } from '../test/harness';
import { askStatsJson, requestStatsJson } from './stats.service';
import type { StatsRangeInput } from './stats.service';
import { migrationsBefore, migrationsThrough } from '../test/migrations';

/** The services' answers (JSON text) read back. */
const askStats = async (ctx: AppContext, input: StatsRangeInput) =>
  JSON.parse(await askStatsJson(ctx, input)) as AskStatsBucket[];
const requestStats = async (ctx: AppContext, input: StatsRangeInput) =>
  JSON.parse(await requestStatsJson(ctx, input)) as RequestStatsBucket[];

const MIN = 60_000;
const HOUR = 60 * MIN;
const DAY = 24 * HOUR;
const T0 = Date.parse('2021-03-01T00:00:00.000Z');
const iso = (ms: number) => new Date(ms).toISOString();

/** Deterministic pseudo-random numbers (mulberry32). */
function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

type AskRow = Omit<AskLogsTable, 'id' | 'cost'>;
type RequestRow = Omit<RequestLogsTable, 'id'>;

/** Over 4 days from T0: random instants, some exactly on 30-minute boundaries; a few users, some rows without. */
function dataset(seed: number, asks: number, requests: number): { asks: AskRow[]; requests: RequestRow[] } {
  const next = rng(seed);
  const pick = <T>(items: readonly T[]) => items[Math.floor(next() * items.length)]!;
  const time = () =>
    iso(next() < 0.1 ? T0 + Math.floor(next() * 4 * 48) * 30 * MIN : T0 + Math.floor(next() * 4 * DAY));
  const user = () => (next() < 0.1 ? null : 1 + Math.floor(next() * 12));
  return {
    asks: Array.from({ length: asks }, () => ({
      time: time(),
      source: pick(['openai_web', 'openai_api']),
      model: pick(['gpt_3_5', 'gpt_4']),
      user_id: user(),
      conversation_id: null,
      server_id: null,
      queueing_time: Math.floor(next() * 5000) / 1000,
      ask_time: Math.floor(next() * 90_000) / 1000,
      outcome: 'success',
      charged: 1,
      error: null,
      input_tokens: null,
      output_tokens: null,
      tokens_estimated: 0,
    })),
    requests: Array.from({ length: requests }, () => ({
      time: time(),
      route_path: pick(['/api/conv', '/api/user/me', '/api/chat']),
      method: pick(['GET', 'POST']),
      user_id: user(),
      elapsed_ms: Math.floor(next() * 3000),
      status: 200,
    })),
  };
}

/** The statistics computed directly: every row in [start, end) bucketed on the UTC epoch, as the API defines them. */
function expected(rows: { asks: AskRow[]; requests: RequestRow[] }, start: number, end: number, g: number) {
  const bucket = (time: string) => {
    const ms = Date.parse(time);
    return iso(ms - (ms % (g * 1000)));
  };
  const inRange = <R extends { time: string }>(list: R[]) =>
    list.filter((r) => Date.parse(r.time) >= start && Date.parse(r.time) < end);
  const group = <R extends { time: string }>(list: R[], keyOf: (r: R) => string[]) => {
    const groups = new Map<string, R[]>();
    for (const r of inRange(list)) {
      const id = [bucket(r.time), ...keyOf(r)].join('\u0000');
      groups.set(id, [...(groups.get(id) ?? []), r]);
    }
    return [...groups.entries()].sort(([a], [b]) => (a < b ? -1 : 1)).map(([, members]) => members);
  };
  const users = (list: { user_id: number | null }[]) =>
    [...new Set(list.flatMap((r) => (r.user_id === null ? [] : [r.user_id])))].sort((a, b) => a - b);
  const sum = (list: number[]) => Math.round(list.reduce((n, x) => n + x, 0) * 1000) / 1000;
  const asks: AskStatsBucket[] = group(rows.asks, (r) => [r.source, r.model]).map((m) => ({
    _id: { start_time: bucket(m[0]!.time), meta: { source: m[0]!.source, model: m[0]!.model } },
    count: m.length,
    user_ids: users(m),
    total_ask_time: sum(m.map((r) => r.ask_time)),
    total_queueing_time: sum(m.map((r) => r.queueing_time)),
  }));
  const requests: RequestStatsBucket[] = group(rows.requests, (r) => [r.route_path, r.method]).map((m) => ({
    _id: { start_time: bucket(m[0]!.time), route_path: m[0]!.route_path, method: m[0]!.method },
    count: m.length,
    user_ids: users(m),
    avg_elapsed_ms: Math.round((m.reduce((n, r) => n + r.elapsed_ms, 0) / m.length) * 100) / 100,
  }));
  return { asks, requests };
}

/** Ranges with aligned and unaligned ends, inside one 30-minute bucket, across one boundary, and the whole data. */
const RANGES: [number, number][] = [
  [T0, T0 + 4 * DAY],
  [T0 - DAY, T0 + 5 * DAY],
  [T0 + 7 * MIN + 13_017, T0 + 3 * DAY + 5 * HOUR + 61_000],
  [T0 + HOUR + 5 * MIN, T0 + HOUR + 20 * MIN],
  [T0 + HOUR + 20 * MIN, T0 + HOUR + 40 * MIN],
  [T0 + 2 * HOUR, T0 + 2 * DAY + 29 * MIN],
  [T0 + 11 * HOUR + 59 * MIN, T0 + 36 * HOUR],
];

async function insertAll(t: { ctx: AppContext }, rows: { asks: AskRow[]; requests: RequestRow[] }) {
  const db = t.ctx.dbHandle.db;
  for (const row of rows.asks) await askLogRepository(db).insert(row);
  for (let i = 0; i < rows.requests.length; i += 200)
    await requestLogRepository(db).insertMany(rows.requests.slice(i, i + 200));
}

describe('statistics at every granularity equal a direct computation over the rows', () => {
  let t: TestApp;
  let admin: string;
  const rows = dataset(7, 500, 1500);
  beforeAll(async () => {
    t = await createTestApp();
    admin = await t.login(ADMIN.username, ADMIN.password);
    await insertAll(t, rows);
  });
  afterAll(() => t.close());

  const get = async (kind: 'ask' | 'request', start: number, end: number, g: number) => {
    const r = await t.app.inject({
      method: 'GET',
      url: `/api/system/stats/${kind}?granularity=${g}&start_time=${iso(start)}&end_time=${iso(end)}`,
      headers: { cookie: admin },
    });
    expect(r.statusCode).toBe(200);
    return r.json().result as unknown;
  };

  it('asks and requests over aligned, unaligned and sub-bucket ranges', async () => {
    for (const [start, end] of RANGES) {
      for (const g of STATS_GRANULARITIES) {
        const want = expected(rows, start, end, g);
        expect(await get('ask', start, end, g), `asks ${iso(start)}…${iso(end)} /${g}`).toEqual(want.asks);
        expect(await get('request', start, end, g), `requests ${iso(start)}…${iso(end)} /${g}`).toEqual(
          want.requests,
        );
      }
    }
  });

  it('rows purged by retention leave the statistics, also mid-bucket', async () => {
    const cutoff = T0 + DAY + 10 * HOUR + 17 * MIN + 3_000;
    const db = t.ctx.dbHandle.db;
    await askLogRepository(db).purgeBefore(iso(cutoff));
    await requestLogRepository(db).purgeBefore(iso(cutoff));
    const kept = {
      asks: rows.asks.filter((r) => Date.parse(r.time) >= cutoff),
      requests: rows.requests.filter((r) => Date.parse(r.time) >= cutoff),
    };
    for (const [start, end] of [
      RANGES[0]!,
      RANGES[2]!,
      [T0 + DAY + 10 * HOUR, T0 + DAY + 11 * HOUR] as const,
    ]) {
      for (const g of [1800, 3600, 86400]) {
        const want = expected(kept, start, end, g);
        expect(await get('ask', start, end, g)).toEqual(want.asks);
        expect(await get('request', start, end, g)).toEqual(want.requests);
      }
    }
  });
});

describe('rollups kept as rows arrive', () => {
  it('one batch with several users, and no user, in the same bucket and route counts each once', async () => {
    const t = await createTestApp();
    try {
      const row = (minute: number, userId: number | null, ms: number): RequestRow => ({
        time: iso(T0 + minute * MIN),
        route_path: '/api/conv',
        method: 'GET',
        user_id: userId,
        elapsed_ms: ms,
        status: 200,
      });
      const batch = [
        row(1, 5, 10),
        row(2, 3, 20),
        row(3, 5, 30),
        row(4, null, 40),
        row(5, 9, 50),
        row(6, 3, 60),
      ];
      await requestLogRepository(t.ctx.dbHandle.db).insertMany(batch);
      await requestLogRepository(t.ctx.dbHandle.db).insertMany([row(7, 9, 70), row(8, 11, 80)]);
      const ctx = t.ctx;
      const result = await requestStats(ctx, {
        granularity: 1800,
        start_time: iso(T0),
        end_time: iso(T0 + DAY),
      });
      expect(result).toEqual([
        {
          _id: { start_time: iso(T0), route_path: '/api/conv', method: 'GET' },
          count: 8,
          user_ids: [3, 5, 9, 11],
          avg_elapsed_ms: 45,
        },
      ]);
    } finally {
      await t.close();
    }
  });
});

describe('2026-11-23-11-stats', () => {
  it('builds the rollups from the rows stored before it', async () => {
    const database = await freshDatabase();
    const handle = openDb({ databaseUrl: database.url, dataDir: database.dataDir });
    const before = migrationsBefore('2026-11-23-11-stats');
    try {
      await prepareSchema(handle, true, before);
      const rows = dataset(11, 800, 800);
      // Rows as written before this migration: the log tables only.
      const db = handle.db as unknown as AnyDb;
      await db.insertInto('ask_logs').values(rows.asks).execute();
      await db.insertInto('request_logs').values(rows.requests).execute();
      await prepareSchema(handle, true);
      const ctx = { dbHandle: handle } as unknown as AppContext;
      for (const [start, end] of [RANGES[1]!, RANGES[2]!, RANGES[4]!]) {
        for (const g of [1800, 10800, 86400]) {
          const input = { granularity: g, start_time: iso(start), end_time: iso(end) };
          const want = expected(rows, start, end, g);
          expect(await askStats(ctx, input)).toEqual(want.asks);
          expect(await requestStats(ctx, input)).toEqual(want.requests);
        }
      }
    } finally {
      await handle.close();
      await database.drop();
    }
  });
});

describe('stored user lists', () => {
  it('every granularity keeps its buckets with the distinct users sorted, through merged and repeated writes', async () => {
    const t = await createTestApp();
    try {
      const db = t.ctx.dbHandle.db;
      const row = (minute: number, userId: number | null): RequestRow => ({
        time: iso(T0 + minute * MIN),
        route_path: '/api/conv',
        method: 'GET',
        user_id: userId,
        elapsed_ms: 10,
        status: 200,
      });
      // Batches bring new users (merged), known ones alone or several (kept), none at all, and the largest id a
      // column holds.
      const batches = [
        [row(1, 40), row(2, 7), row(3, null)],
        [row(4, 7)],
        [row(5, null)],
        [row(6, 3), row(7, 2_147_483_647), row(8, 40)],
        [row(9, 40), row(10, 7), row(11, 3)], // all known
        // One new user at a time: between two (with fewer digits than the next), first, last, between again.
        [row(12, 20)],
        [row(13, 5)],
        [row(14, 1)],
        [row(15, 2_147_483_646)],
        [row(16, 39)],
        [row(40, 100), row(41, 7)], // the next 30-minute bucket
        [row(24 * 60 + 1, 9)], // the next day
      ];
      for (const batch of batches) await requestLogRepository(db).insertMany(batch);
      const asks = [7, 40, 7, 3].map((userId, i) => ({
        ...dataset(1, 1, 0).asks[0]!,
        time: iso(T0 + i * MIN),
        user_id: userId,
      }));
      for (const ask of asks)
        await askLogRepository(db).insert({ ...ask, source: 'openai_web', model: 'gpt_4' });
      const rows = batches.flat();
      for (const span of STATS_GRANULARITIES) {
        const stored = await db
          .selectFrom('request_stats_rollups')
          .select(['bucket', 'count', 'user_ids_json'])
          .where('span', '=', span)
          .orderBy('bucket')
          .execute();
        const buckets = new Map<number, RequestRow[]>();
        for (const r of rows) {
          const b = Math.floor(Date.parse(r.time) / 1000 / span) * span;
          buckets.set(b, [...(buckets.get(b) ?? []), r]);
        }
        expect(
          stored.map((s) => ({ ...s, bucket: Number(s.bucket) })),
          `span ${span}`,
        ).toEqual(
          [...buckets].map(([bucket, members]) => ({
            bucket,
            count: members.length,
            user_ids_json: JSON.stringify(
              [...new Set(members.flatMap((m) => (m.user_id === null ? [] : [m.user_id])))].sort(
                (a, b) => a - b,
              ),
            ),
          })),
        );
        const ask = await db
          .selectFrom('ask_stats_rollups')
          .select('user_ids_json')
          .where('span', '=', span)
          .executeTakeFirstOrThrow();
        expect(ask.user_ids_json).toBe('[3,7,40]');
      }
    } finally {
      await t.close();
    }
  });
});

describe('coarse buckets', () => {
  it('count a user once across the 30-minute buckets, the log rows at the edges and the whole buckets', async () => {
    const t = await createTestApp();
    try {
      const row = (minute: number, userId: number | null, route = '/api/conv'): RequestRow => ({
        time: iso(T0 + minute * MIN),
        route_path: route,
        method: 'GET',
        user_id: userId,
        elapsed_ms: 30,
        status: 200,
      });
      await requestLogRepository(t.ctx.dbHandle.db).insertMany([
        row(10, 5), // edge of the first hour (log rows)
        row(20, 8),
        row(40, 5), // a whole 30-minute bucket of the first hour
        row(50, 3),
        row(70, 8), // the second hour: whole
        row(100, 5),
        row(100, null),
        row(130, 1), // the third hour: a whole 30-minute bucket, then log rows at the end
        row(170, 1),
        row(175, 2),
        row(176, 2, '/api/user/me'),
      ]);
      const hourly = await requestStats(t.ctx, {
        granularity: 3600,
        start_time: iso(T0 + 5 * MIN),
        end_time: iso(T0 + 172 * MIN),
      });
      expect(hourly.map((b) => [b._id.start_time, b.count, b.user_ids])).toEqual([
        [iso(T0), 4, [3, 5, 8]],
        [iso(T0 + HOUR), 3, [5, 8]],
        [iso(T0 + 2 * HOUR), 2, [1]],
      ]);
      const daily = await requestStats(t.ctx, {
        granularity: 86400,
        start_time: iso(T0 - DAY),
        end_time: iso(T0 + DAY),
      });
      expect(daily.map((b) => [b._id.route_path, b.count, b.user_ids])).toEqual([
        ['/api/conv', 10, [1, 2, 3, 5, 8]],
        ['/api/user/me', 1, [2]],
      ]);
    } finally {
      await t.close();
    }
  });
});

describe('keys as the database writes them', () => {
  it('escapes any text in JSON and orders keys by code point, in whole buckets and partial ones alike', async () => {
    const t = await createTestApp();
    try {
      const routes = ['/api/"q"\\x', '/api/\u0001ctl', '/api/\u{1F600}', '/api/\uE000', '/api/é', '/api/a'];
      const rows: RequestRow[] = [];
      for (const [i, route] of routes.entries())
        for (const minute of [1, 31, 65])
          // two whole 30-minute buckets and a partial one
          rows.push({
            time: iso(T0 + minute * MIN),
            route_path: route,
            method: 'GET',
            user_id: i + 1,
            elapsed_ms: 1,
            status: 200,
          });
      await requestLogRepository(t.ctx.dbHandle.db).insertMany(rows);
      const byCodePoint = [...routes].sort((a, b) => Buffer.compare(Buffer.from(a), Buffer.from(b)));
      for (const g of [1800, 3600]) {
        const answer = await requestStats(t.ctx, {
          granularity: g,
          start_time: iso(T0),
          end_time: iso(T0 + 70 * MIN),
        });
        const buckets = [...new Set(answer.map((b) => b._id.start_time))];
        expect(buckets.length).toBe(g === 1800 ? 3 : 2);
        for (const start of buckets)
          expect(answer.filter((b) => b._id.start_time === start).map((b) => b._id.route_path)).toEqual(
            byCodePoint,
          );
      }
    } finally {
      await t.close();
    }
  });

  it('rounds numbers as JavaScript does', async () => {
    const t = await createTestApp();
    try {
      const { jsRounded } = await import('../repositories/stats-rollup');
      const { sql } = await import('kysely');
      const next = rng(3);
      const values = [1.005, 0.285, 2.5, 0.0005, 1234.5675, 0.49999999999999994, 1e-7, 123456.789];
      for (let i = 0; i < 200; i++)
        values.push(Math.floor(next() * 1e7) / 1e4 + (next() < 0.5 ? 0.00005 : 0));
      for (const scale of [100, 1000]) {
        const { rows } = await sql<{ v: string }>`select ${sql.join(
          values.map((v) => sql`'' || ${jsRounded(sql`cast(${v} as double precision)`, scale)}`),
          sql`|| ' ' ||`,
        )} as v`.execute(t.ctx.dbHandle.db);
        expect(rows[0]!.v.split(' ').map(Number)).toEqual(values.map((v) => Math.round(v * scale) / scale));
      }
    } finally {
      await t.close();
    }
  });
});

describe('2026-11-26-03-stats-rollup-ids', () => {
  it('sorts the packed lists, builds every granularity from the 30-minute rows, and goes back', async () => {
    const { Migrator } = await import('kysely');
    const database = await freshDatabase();
    const handle = openDb({ databaseUrl: database.url, dataDir: database.dataDir });
    const upTo = migrationsThrough;
    try {
      await prepareSchema(handle, true, upTo('2026-11-25-99'));
      const db = handle.db as unknown as AnyDb;
      const b0 = T0 / 1000;
      const ask = (bucket: number, model: string, count: number, users: string) => ({
        bucket,
        source: 'openai_web',
        model,
        count,
        total_ask_time: count * 1.5,
        total_queueing_time: count * 0.25,
        user_ids: users,
      });
      // Rollups as the packed lists were written: in arrival order, `,` for none.
      await db
        .insertInto('ask_stats_rollups')
        .values([
          ask(b0, 'gpt_4', 3, ',42,3,17,'),
          ask(b0 + 1800, 'gpt_4', 2, ',5,3,'),
          ask(b0 + 1800, 'gpt_3_5', 1, ','),
          ask(b0 + 7200, 'gpt_4', 1, ',17,'),
        ])
        .execute();
      await db
        .insertInto('request_stats_rollups')
        .values([
          {
            bucket: b0,
            route_path: '/api/conv',
            method: 'GET',
            count: 2,
            total_elapsed_ms: 7,
            user_ids: ',9,1,',
          },
        ])
        .execute();
      await prepareSchema(handle, true, upTo('2026-11-26-03-stats-rollup-ids'));
      const stored = await db
        .selectFrom('ask_stats_rollups')
        .select(['span', 'bucket', 'model', 'count', 'total_ask_time', 'user_ids_json'])
        .orderBy('span')
        .orderBy('bucket')
        .orderBy('model')
        .execute();
      const row = (span: number, bucket: number, model: string, count: number, users: string) => ({
        span,
        bucket,
        model,
        count,
        total_ask_time: count * 1.5,
        user_ids_json: users,
      });
      expect(stored.map((r) => ({ ...r, bucket: Number(r.bucket) }))).toEqual([
        row(1800, b0, 'gpt_4', 3, '[3,17,42]'),
        row(1800, b0 + 1800, 'gpt_3_5', 1, '[]'),
        row(1800, b0 + 1800, 'gpt_4', 2, '[3,5]'),
        row(1800, b0 + 7200, 'gpt_4', 1, '[17]'),
        row(3600, b0, 'gpt_3_5', 1, '[]'),
        row(3600, b0, 'gpt_4', 5, '[3,5,17,42]'),
        row(3600, b0 + 7200, 'gpt_4', 1, '[17]'),
        ...[10800, 21600, 43200, 86400].flatMap((span) => [
          row(span, b0, 'gpt_3_5', 1, '[]'),
          row(span, b0, 'gpt_4', 6, '[3,5,17,42]'),
        ]),
      ]);
      const requests = await db
        .selectFrom('request_stats_rollups')
        .select(['span', 'user_ids_json'])
        .execute();
      expect(requests.map((r) => [r.span, r.user_ids_json])).toEqual(
        STATS_GRANULARITIES.map((span) => [span, '[1,9]']),
      );

      const migrator = new Migrator({
        db: handle.db,
        provider: {
          getMigrations: () => Promise.resolve(upTo('2026-11-26-03-stats-rollup-ids')(handle.dialect)),
        },
        migrationTableName: 'cc_migrations',
        migrationLockTableName: 'cc_migrations_lock',
      });
      const { error } = await migrator.migrateDown();
      expect(error).toBeUndefined();
      const back = await db
        .selectFrom('ask_stats_rollups')
        .select(['bucket', 'model', 'count', 'user_ids'])
        .orderBy('bucket')
        .orderBy('model')
        .execute();
      expect(back.map((r) => [Number(r.bucket), r.model, r.count, r.user_ids])).toEqual([
        [b0, 'gpt_4', 3, ',3,17,42,'],
        [b0 + 1800, 'gpt_3_5', 1, ','],
        [b0 + 1800, 'gpt_4', 2, ',3,5,'],
        [b0 + 7200, 'gpt_4', 1, ',17,'],
      ]);
    } finally {
      await handle.close();
      await database.drop();
    }
  });
});
