/**
 * Admin lists at scale: 10,000 users (with settings and counters) and 100,000 conversations seeded in bulk into the
 * real app in-process (a fresh SQLite file, then a fresh `cc_test_<random>` PostgreSQL database), then pages of
 * `GET /api/user` and `GET /api/conv/all` timed through HTTP (inject): the first page, a search, other sorts, a
 * filter and a deep page (PostgreSQL's tables analyzed after the load, as its autovacuum does). Prints a table
 * (p50 / p95 / max ms and the answer's size) and saves bench/results/admin-lists.json.
 *
 * Run: `node --import tsx bench/admin-lists.ts [users=10000] [conversations=100000] [runs=20]`
 * (PostgreSQL from CC_BENCH_DATABASE_URL, default postgres://postgres@127.0.0.1:5432/postgres; `skip-pg` skips it).
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { sql } from 'kysely';
import { ADMIN, createTestApp } from '../apps/server/src/test/harness';
import type { TestApp } from '../apps/server/src/test/harness';

const numbers = process.argv
  .slice(2)
  .filter((a) => /^\d+$/.test(a))
  .map(Number);
const USERS = numbers[0] ?? 10_000;
const CONVERSATIONS = numbers[1] ?? 100_000;
const RUNS = numbers[2] ?? 20;
const BATCH = 500;
const PG_BASE = process.env.CC_BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';

async function seed(t: TestApp): Promise<void> {
  const db = t.ctx.dbHandle.db;
  const template = await db
    .selectFrom('user_settings')
    .selectAll()
    .where('user_id', '=', 1)
    .executeTakeFirstOrThrow();
  const now = new Date().toISOString();
  const day = 86_400_000;
  for (let start = 0; start < USERS; start += BATCH) {
    const count = Math.min(BATCH, USERS - start);
    const users = await db
      .insertInto('users')
      .values(
        Array.from({ length: count }, (_, k) => {
          const i = start + k;
          return {
            username: `user${String(i).padStart(5, '0')}`,
            nickname: `Person ${i % 997}`,
            email: `user${i}@example.com`,
            hashed_password: 'x',
            avatar: null,
            remark: i % 50 === 0 ? `team ${i % 7}` : null,
            is_active: i % 10 === 0 ? 0 : 1,
            is_superuser: 0,
            is_verified: 0,
            last_active_time: i % 3 === 0 ? null : new Date(Date.now() - (i % 90) * day).toISOString(),
            create_time: now,
            update_time: now,
            group_id: null,
          };
        }),
      )
      .returning('id')
      .execute();
    await db
      .insertInto('user_settings')
      .values(
        users.map(({ id }) => ({
          user_id: id,
          budget_total: -1,
          openai_web: template.openai_web,
          openai_api: template.openai_api,
          update_time: now,
          own_settings: null,
        })),
      )
      .execute();
    await db
      .insertInto('quota_counters')
      .values(
        users.flatMap(({ id }) => [
          { user_id: id, source: 'openai_web', model: '*', remaining: 100 },
          { user_id: id, source: 'openai_web', model: 'gpt_4', remaining: 10 },
          { user_id: id, source: 'openai_api', model: '*', remaining: 50 },
        ]),
      )
      .execute();
  }
  const firstUser = 2;
  for (let start = 0; start < CONVERSATIONS; start += BATCH) {
    const count = Math.min(BATCH, CONVERSATIONS - start);
    await db
      .insertInto('conversations')
      .values(
        Array.from({ length: count }, (_, k) => {
          const i = start + k;
          const time = new Date(Date.UTC(2026, 0, 1) + i * 60_000).toISOString();
          return {
            conversation_id: `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`,
            source: i % 2 === 0 ? 'openai_api' : 'openai_web',
            title: `Conversation ${(i * 7919) % CONVERSATIONS}`,
            user_id: firstUser + (i % USERS),
            is_valid: i % 13 === 0 ? 0 : 1,
            is_public: 0,
            current_model: 'gpt_3_5',
            current_node: null,
            server_id: null,
            plugin_ids: null,
            create_time: time,
            update_time: time,
          };
        }),
      )
      .execute();
  }
}

const CASES = [
  ['users: first page (50)', '/api/user?limit=50'],
  ['users: search "person 42"', '/api/user?limit=50&q=person%2042'],
  ['users: by last activity, newest', '/api/user?limit=50&sort=last_active&order=desc'],
  ['users: by username, page 100', '/api/user?limit=50&sort=username&offset=4950'],
  ['users: inactive', '/api/user?limit=50&active=false'],
  ['users: every match as refs', '/api/user/refs'],
  ['convs: first page (50)', '/api/conv/all?limit=50'],
  ['convs: first page (100, default)', '/api/conv/all'],
  ['convs: by title', '/api/conv/all?limit=50&sort=title&order=asc'],
  ['convs: one user', '/api/conv/all?limit=50&user_id=4242'],
  ['convs: invalid, web', '/api/conv/all?limit=50&is_valid=false&source=openai_web'],
  ['convs: page 1,000', '/api/conv/all?limit=50&offset=49950'],
] as const;

interface Row {
  dialect: string;
  case: string;
  url: string;
  p50: number;
  p95: number;
  max: number;
  bytes: number;
  total: number | null;
}

const quantile = (sorted: number[], q: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;

async function measure(dialect: string): Promise<Row[]> {
  const t = await createTestApp({}, undefined, { log: undefined });
  try {
    const seedStart = performance.now();
    await seed(t);
    // PostgreSQL's autovacuum analyzes a table within about a minute of a bulk load; without its statistics the
    // planner takes 100,000 rows for ~13,000 and sorts them all for a deep page (60–110 ms instead of ~8 ms).
    // SQLite is measured as the product runs it: without ANALYZE.
    if (t.ctx.dbHandle.dialect === 'postgres') await sql`analyze`.execute(t.ctx.dbHandle.db);
    console.log(
      `${dialect}: seeded ${USERS} users and ${CONVERSATIONS} conversations in ${Math.round(performance.now() - seedStart)} ms`,
    );
    const cookie = await t.login(ADMIN.username, ADMIN.password);
    const rows: Row[] = [];
    for (const [name, url] of CASES) {
      const times: number[] = [];
      let bytes = 0;
      let total: number | null = null;
      for (let run = 0; run < RUNS + 2; run++) {
        const start = performance.now();
        const res = await t.app.inject({ method: 'GET', url, headers: { cookie } });
        const ms = performance.now() - start;
        if (res.statusCode !== 200) throw new Error(`${url}: ${res.statusCode} ${res.body.slice(0, 200)}`);
        if (run >= 2) times.push(ms); // two warm-up runs
        bytes = res.rawPayload.length;
        const header = res.headers['x-total-count'];
        total = header === undefined ? null : Number(header);
      }
      times.sort((a, b) => a - b);
      rows.push({
        dialect,
        case: name,
        url,
        p50: +quantile(times, 0.5).toFixed(1),
        p95: +quantile(times, 0.95).toFixed(1),
        max: +times[times.length - 1]!.toFixed(1),
        bytes,
        total,
      });
    }
    return rows;
  } finally {
    await t.close();
  }
}

const results: Row[] = [];
delete process.env.CC_TEST_DATABASE_URL;
results.push(...(await measure('sqlite')));
if (!process.argv.includes('skip-pg')) {
  process.env.CC_TEST_DATABASE_URL = PG_BASE;
  results.push(...(await measure('postgres')));
}
console.table(
  results.map((r) => ({
    dialect: r.dialect,
    case: r.case,
    'p50 ms': r.p50,
    'p95 ms': r.p95,
    'max ms': r.max,
    kB: +(r.bytes / 1024).toFixed(1),
    total: r.total ?? '',
  })),
);
const out = path.join(path.dirname(fileURLToPath(import.meta.url)), 'results');
mkdirSync(out, { recursive: true });
writeFileSync(
  path.join(out, 'admin-lists.json'),
  JSON.stringify(
    { date: new Date().toISOString(), users: USERS, conversations: CONVERSATIONS, runs: RUNS, results },
    null,
    2,
  ),
);
console.log(`saved bench/results/admin-lists.json`);
