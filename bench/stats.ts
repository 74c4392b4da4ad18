/**
 * Statistics benchmark: 1,000,000 ask_logs and 1,000,000 request_logs over 90 days in a fresh SQLite file and a
 * fresh PostgreSQL database (`cc_bench_<random>`, dropped at the end), then the statistics services timed for
 * ranges of 1, 30 and 90 days at 30 min, 1 h and 1 day. Each case runs in its own process, so its peak RSS is
 * its own. Prints a table and saves JSON under bench/results/.
 *
 * Each timed call is the route's whole answer: the service and the serializing of its response as the route does
 * it (the share of the service is reported beside it; the service builds the JSON text itself).
 *
 * Run: `node --import tsx bench/stats.ts [rows=1000000] [runs=5] [label]` (the label goes into the results' file
 * name; `--writes`: the write cost instead); PostgreSQL from CC_BENCH_DATABASE_URL
 * (default postgres://postgres@127.0.0.1:5432/postgres; `none` skips it).
 * Internal: `node --import tsx bench/stats.ts --case <dialect> <url> <kind> <days> <granularity> <runs> <end>`.
 */
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { sql } from 'kysely';
import pg from 'pg';
import { okJson } from '../apps/server/src/http/envelope';
import type { AppContext } from '../apps/server/src/app-context';
import { openDb } from '../apps/server/src/db/client';
import type { DbHandle } from '../apps/server/src/db/client';
import { migrateToLatest } from '../apps/server/src/db/migrate';
import { migrationList } from '../apps/server/src/db/migrations';
import type { AskLogsTable, RequestLogsTable } from '../apps/server/src/db/schema';
import { askLogRepository } from '../apps/server/src/repositories/ask-log.repository';
import { requestLogRepository } from '../apps/server/src/repositories/request-log.repository';
import { askStatsJson, requestStatsJson } from '../apps/server/src/services/stats.service';
import type { StatsRangeInput } from '../apps/server/src/services/stats.service';

const DAY_MS = 86_400_000;
/** The data ends here; queries end a little before (an unaligned end, as "now" is). */
const DATA_END = Date.parse('2026-11-01T00:00:00.000Z');
const QUERY_END = new Date(DATA_END - 17 * 60_000 - 13_000).toISOString();
const DAYS = 90;
const USERS = 500;
const ASK_KEYS = [
  ['openai_web', 'gpt_3_5', 30],
  ['openai_web', 'gpt_4', 15],
  ['openai_web', 'gpt_4_browsing', 3],
  ['openai_api', 'gpt_3_5', 35],
  ['openai_api', 'gpt_4', 12],
  ['openai_api', 'gpt_4o', 5],
] as const;
const ROUTES = [
  ['/api/conv', 'GET', 20],
  ['/api/conv/:conversation_id', 'GET', 25],
  ['/api/conv/:conversation_id', 'PATCH', 3],
  ['/api/conv/:conversation_id', 'DELETE', 1],
  ['/api/user/me', 'GET', 20],
  ['/api/chat', 'WEBSOCKET', 15],
  ['/api/chat/models', 'GET', 5],
  ['/api/auth/login', 'POST', 1],
  ['/api/files/upload', 'POST', 2],
  ['/api/system/info', 'GET', 1],
  ['/api/status/common', 'GET', 7],
] as const;
/** Case order: cheapest first. */
const RANGES = [1, 30, 90];
const GRANULARITIES = [1800, 3600, 86400];

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

function weighted<T extends readonly unknown[]>(items: readonly T[], r: number): T {
  const total = items.reduce((n, i) => n + (i[i.length - 1] as number), 0);
  let x = r * total;
  for (const item of items) {
    x -= item[item.length - 1] as number;
    if (x < 0) return item;
  }
  return items[items.length - 1]!;
}

/** A few heavy users, many light ones; 2% of requests are anonymous. */
function userOf(r: number): number {
  return 1 + Math.floor(USERS * r * r * r);
}

function timeOf(r: number): string {
  return new Date(DATA_END - Math.floor(r * DAYS * DAY_MS)).toISOString();
}

type Row = Record<string, string | number | null>;

function askRow(next: () => number): Row {
  const [source, model] = weighted(ASK_KEYS, next());
  return {
    time: timeOf(next()),
    source,
    model,
    user_id: userOf(next()),
    conversation_id: null,
    server_id: null,
    queueing_time: Math.round(next() * 3000) / 1000,
    ask_time: Math.round(next() * 60000) / 1000,
    outcome: 'success',
    charged: 1,
    error: null,
  };
}

function requestRow(next: () => number): Row {
  const [route_path, method] = weighted(ROUTES, next());
  const anonymous = next() < 0.02;
  return {
    time: timeOf(next()),
    route_path,
    method,
    user_id: anonymous ? null : userOf(next()),
    elapsed_ms: Math.round(next() * 500_000) / 1000,
    status: 200,
  };
}

const PG_TYPES: Record<string, string> = {
  time: 'text',
  source: 'text',
  model: 'text',
  user_id: 'int',
  conversation_id: 'text',
  server_id: 'int',
  queueing_time: 'float8',
  ask_time: 'float8',
  outcome: 'text',
  charged: 'int',
  error: 'text',
  route_path: 'text',
  method: 'text',
  elapsed_ms: 'float8',
  status: 'int',
};

/**
 * Bulk insert: PostgreSQL `unnest` of column arrays (10,000 rows a statement), SQLite multi-row VALUES in one
 * transaction.
 */
async function seed(handle: DbHandle, table: string, rows: number, make: (next: () => number) => Row) {
  const next = rng(table === 'ask_logs' ? 1 : 2);
  const columns = Object.keys(make(rng(0)));
  const batch = handle.dialect === 'postgres' ? 10_000 : 500;
  await handle.db.transaction().execute(async (trx) => {
    for (let done = 0; done < rows; done += batch) {
      const chunk = Array.from({ length: Math.min(batch, rows - done) }, () => make(next));
      const cols = sql.join(columns.map((c) => sql.ref(c)));
      if (handle.dialect === 'postgres') {
        const arrays = columns.map((c) => sql`${chunk.map((r) => r[c])}::${sql.raw(PG_TYPES[c]!)}[]`);
        await sql`insert into ${sql.table(table)} (${cols}) select * from unnest(${sql.join(arrays)})`.execute(
          trx,
        );
      } else {
        const values = chunk.map((r) => sql`(${sql.join(columns.map((c) => r[c]))})`);
        await sql`insert into ${sql.table(table)} (${cols}) values ${sql.join(values)}`.execute(trx);
      }
    }
  });
}

interface CaseResult {
  dialect: string;
  kind: 'ask' | 'request';
  days: number;
  granularity: number;
  runs: number;
  buckets: number;
  /** Size of the serialized response body. */
  body_kb: number;
  /** The service's share of the median call (the rest is serializing its answer). */
  service_median_ms: number;
  median_ms: number;
  max_ms: number;
  peak_rss_mb: number;
}

/**
 * The route's answer, as `routes/system.routes.ts` produces it: the service's JSON text in the success envelope
 * (sent as the body as is).
 */
function routeAnswer(ctx: AppContext, kind: string, input: StatsRangeInput) {
  return async (): Promise<{ body: string; service_ms: number }> => {
    const began = performance.now();
    const result = await (kind === 'ask' ? askStatsJson(ctx, input) : requestStatsJson(ctx, input));
    const service_ms = performance.now() - began;
    return { body: okJson(result), service_ms };
  };
}

/** One case in this process: `runs` timed answers of the route (after one untimed warm-up). */
async function runCase(args: string[]): Promise<void> {
  const [dialect, url, kind, days, granularity, runs, end] = args as [string, string, string, ...string[]];
  const handle = openDb({ databaseUrl: url, dataDir: tmpdir() });
  const ctx = { dbHandle: handle } as unknown as AppContext;
  const input = {
    granularity: Number(granularity),
    start_time: new Date(Date.parse(end!) - Number(days) * DAY_MS).toISOString(),
    end_time: end,
  };
  const call = routeAnswer(ctx, kind, input);
  const bucketsOf = (body: string) => (JSON.parse(body) as { result: unknown[] }).result.length;
  const times: number[] = [];
  const serviceTimes: number[] = [];
  // One untimed warm-up call, unless a single run is asked for (slow cases).
  let last = Number(runs) > 1 ? (await call()).body : '';
  for (let i = 0; i < Number(runs); i++) {
    const began = performance.now();
    const answer = await call();
    times.push(performance.now() - began);
    serviceTimes.push(answer.service_ms);
    last = answer.body;
  }
  await handle.close();
  times.sort((a, b) => a - b);
  serviceTimes.sort((a, b) => a - b);
  const median = (list: number[]) => Math.round(list[Math.floor((list.length - 1) / 2)]! * 10) / 10;
  const result: CaseResult = {
    dialect,
    kind: kind as CaseResult['kind'],
    days: Number(days),
    granularity: Number(granularity),
    runs: times.length,
    buckets: bucketsOf(last),
    body_kb: Math.round(Buffer.byteLength(last) / 1024),
    service_median_ms: median(serviceTimes),
    median_ms: median(times),
    max_ms: Math.round(times[times.length - 1]! * 10) / 10,
    peak_rss_mb: Math.round(process.resourceUsage().maxRSS / 1024),
  };
  process.stdout.write(`${JSON.stringify(result)}\n`);
}

/**
 * Seeds the logs. When this tree has migrations that the seed should precede (the statistics rollups), the
 * schema stops before them, the rows go in, and the rest of the migrations then run timed (their backfill).
 */
async function prepare(handle: DbHandle, rows: number): Promise<{ seed_s: number; migrate_s: number }> {
  const all = migrationList(handle.dialect);
  const names = Object.keys(all).sort();
  const cut = names.indexOf('2026-11-23-11-stats');
  const before = cut < 0 ? names : names.slice(0, cut);
  await migrateToLatest(handle, () => Object.fromEntries(before.map((n) => [n, all[n]!])));
  let began = performance.now();
  await seed(handle, 'ask_logs', rows, askRow);
  await seed(handle, 'request_logs', rows, requestRow);
  const seed_s = (performance.now() - began) / 1000;
  began = performance.now();
  await migrateToLatest(handle);
  if (handle.dialect === 'postgres') await sql`analyze`.execute(handle.db);
  return {
    seed_s: Math.round(seed_s * 10) / 10,
    migrate_s: Math.round(((performance.now() - began) / 1000) * 10) / 10,
  };
}

async function main(): Promise<void> {
  const rows = Number(process.argv[2] ?? 1_000_000);
  const runs = Number(process.argv[3] ?? 5);
  const label = process.argv[4] ? `${process.argv[4]}-` : '';
  const pgBase = process.env.CC_BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
  const dir = mkdtempSync(path.join(tmpdir(), 'cc-bench-stats-'));
  const targets: { dialect: string; url: string; drop: () => Promise<void> }[] = [
    { dialect: 'sqlite', url: path.join(dir, 'bench.db'), drop: () => Promise.resolve() },
  ];
  if (pgBase !== 'none') {
    const name = `cc_bench_${randomBytes(6).toString('hex')}`;
    const admin = new pg.Client({ connectionString: pgBase });
    await admin.connect();
    await admin.query(`CREATE DATABASE ${name}`);
    await admin.end();
    const url = new URL(pgBase);
    url.pathname = `/${name}`;
    targets.push({
      dialect: 'postgres',
      url: url.toString(),
      async drop() {
        const c = new pg.Client({ connectionString: pgBase });
        await c.connect();
        await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
        await c.end();
      },
    });
  }
  const results: CaseResult[] = [];
  const setup: Record<string, { seed_s: number; migrate_s: number }> = {};
  try {
    for (const target of targets) {
      const handle = openDb({ databaseUrl: target.url, dataDir: dir });
      setup[target.dialect] = await prepare(handle, rows);
      await handle.close();
      console.log(`${target.dialect}: seeded ${rows} + ${rows} rows`, setup[target.dialect]);
      for (const kind of ['ask', 'request'])
        for (const days of RANGES)
          for (const granularity of GRANULARITIES) {
            const script = fileURLToPath(import.meta.url);
            const r = spawnSync(
              process.execPath,
              [
                '--import',
                'tsx',
                script,
                '--case',
                target.dialect,
                target.url,
                kind,
                String(days),
                String(granularity),
                String(runs),
                QUERY_END,
              ],
              { encoding: 'utf8', maxBuffer: 1 << 24 },
            );
            if (r.status !== 0) throw new Error(`case failed: ${r.stderr}`);
            const result = JSON.parse(r.stdout.trim().split('\n').pop()!) as CaseResult;
            results.push(result);
            console.log(
              [
                result.dialect,
                result.kind,
                `${days} d`,
                `${granularity} s`,
                `${result.buckets} buckets`,
                `${result.body_kb} kB`,
                `median ${result.median_ms} ms (service ${result.service_median_ms})`,
                `max ${result.max_ms} ms`,
                `RSS ${result.peak_rss_mb} MB`,
              ].join('  '),
            );
          }
    }
  } finally {
    for (const target of targets) await target.drop();
    rmSync(dir, { recursive: true, force: true });
  }
  console.table(
    results.map((r) => ({
      db: r.dialect,
      stats: r.kind,
      range: `${r.days} d`,
      granularity: r.granularity,
      buckets: r.buckets,
      'body kB': r.body_kb,
      'median ms': r.median_ms,
      'service ms': r.service_median_ms,
      'max ms': r.max_ms,
      'peak RSS MB': r.peak_rss_mb,
    })),
  );
  const out = path.join(path.dirname(fileURLToPath(import.meta.url)), 'results');
  mkdirSync(out, { recursive: true });
  const file = path.join(out, `stats-${label}${new Date().toISOString().replace(/[:.]/g, '-')}.json`);
  writeFileSync(file, `${JSON.stringify({ rows, runs, query_end: QUERY_END, setup, results }, null, 2)}\n`);
  console.log(`saved ${path.relative(process.cwd(), file)}`);
}

/**
 * Write cost: 2,000 asks logged one at a time and 20,000 requests in batches of 200 (as the app writes them),
 * through the repositories, into fresh databases. Prints and saves rows per second.
 */
async function writes(): Promise<void> {
  const pgBase = process.env.CC_BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
  const dir = mkdtempSync(path.join(tmpdir(), 'cc-bench-stats-'));
  const name = `cc_bench_${randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ connectionString: pgBase });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  const url = new URL(pgBase);
  url.pathname = `/${name}`;
  const out: Record<string, { asks_per_s: number; requests_per_s: number }> = {};
  try {
    for (const [dialect, target] of [
      ['sqlite', path.join(dir, 'bench.db')],
      ['postgres', url.toString()],
    ] as const) {
      const handle = openDb({ databaseUrl: target, dataDir: dir });
      await migrateToLatest(handle);
      const next = rng(3);
      const recent = () => ({ time: new Date(DATA_END - Math.floor(next() * DAY_MS)).toISOString() });
      let began = performance.now();
      for (let i = 0; i < 2000; i++)
        await askLogRepository(handle.db).insert({
          ...(askRow(next) as unknown as Omit<AskLogsTable, 'id'>),
          ...recent(),
        });
      const asks = 2000 / ((performance.now() - began) / 1000);
      began = performance.now();
      for (let i = 0; i < 100; i++)
        await requestLogRepository(handle.db).insertMany(
          Array.from({ length: 200 }, () => ({
            ...(requestRow(next) as unknown as Omit<RequestLogsTable, 'id'>),
            ...recent(),
          })),
        );
      const requests = 20_000 / ((performance.now() - began) / 1000);
      await handle.close();
      out[dialect] = { asks_per_s: Math.round(asks), requests_per_s: Math.round(requests) };
      console.log(dialect, out[dialect]);
    }
  } finally {
    await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    await admin.end();
    rmSync(dir, { recursive: true, force: true });
  }
  const dirOut = path.join(path.dirname(fileURLToPath(import.meta.url)), 'results');
  mkdirSync(dirOut, { recursive: true });
  const file = path.join(dirOut, `stats-writes-${new Date().toISOString().replace(/[:.]/g, '-')}.json`);
  writeFileSync(file, `${JSON.stringify(out, null, 2)}\n`);
  console.log(`saved ${path.relative(process.cwd(), file)}`);
}

if (process.argv[2] === '--case') await runCase(process.argv.slice(3));
else if (process.argv[2] === '--writes') await writes();
else await main();
