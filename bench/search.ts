/**
 * Search benchmark: 100,000 messages of one user (1,000 conversations of 100 messages, English and Chinese text),
 * seeded in bulk into a fresh SQLite file and a `cc_bench` PostgreSQL database (created, then dropped), then ~200
 * searches of mixed kinds timed through the repository and snippet code `GET /api/conv/search` runs; also the cost
 * of re-writing a streaming answer (the index follows every flush). Prints a table and saves
 * bench/results/search.json. Run: `node --import tsx bench/search.ts [messages=100000]`
 * (PostgreSQL at CC_BENCH_DATABASE_URL, default postgres://postgres@127.0.0.1:5432/postgres; `skip-pg` skips it;
 * `keep` leaves the seeded SQLite file and `cc_bench` database in place, for EXPLAIN and timing by hand).
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { openDb } from '../apps/server/src/db/client';
import type { DbHandle } from '../apps/server/src/db/client';
import { prepareSchema } from '../apps/server/src/db/migrate';
import type { ConversationsTable } from '../apps/server/src/db/schema';
import type { Insertable } from 'kysely';
import { messageRepository } from '../apps/server/src/repositories/message.repository';
import type { NewMessageRow } from '../apps/server/src/repositories/message.repository';
import { searchRepository } from '../apps/server/src/repositories/search.repository';
import { snippetOf } from '../apps/server/src/services/search.service';

const TOTAL = Number(process.argv.find((a) => /^\d+$/.test(a)) ?? 100_000);
const PER_CONVERSATION = 100;
const BATCH = 500;
const LIMIT = 20;
const KEEP = process.argv.includes('keep');
const PG_BASE = process.env.CC_BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';

// Deterministic text: a small PRNG, an English vocabulary with a few very common words, Chinese phrases.
let seed = 42;
const rand = () => (seed = (seed * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff;
const pick = <T>(list: readonly T[]): T => list[Math.floor(rand() * list.length)]!;
const COMMON = ['the', 'and', 'of', 'to', 'is', 'in', 'that', 'it', 'for', 'with'];
const SYLLABLES = [
  'ka',
  'lo',
  'mi',
  'ren',
  'ta',
  'vor',
  'sel',
  'qua',
  'bri',
  'don',
  'fe',
  'zu',
  'pan',
  'tri',
];
const VOCABULARY = Array.from({ length: 3000 }, () =>
  Array.from({ length: 2 + Math.floor(rand() * 3) }, () => pick(SYLLABLES)).join(''),
);
const ZH = [
  '我们',
  '今天',
  '天气',
  '城市',
  '历史',
  '文化',
  '旅行',
  '博物馆',
  '东京',
  '北京',
  '上海',
  '学习',
  '问题',
  '答案',
  '时间',
  '工作',
];
const RARE_WORD = 'xylophonist';

function englishText(words: number): string {
  const out: string[] = [];
  for (let i = 0; i < words; i++) out.push(rand() < 0.35 ? pick(COMMON) : pick(VOCABULARY));
  return out.join(' ');
}
function chineseText(phrases: number): string {
  return Array.from({ length: phrases }, () => pick(ZH)).join('，');
}
function messageText(index: number, role: string): string {
  const long = role === 'assistant';
  let text = rand() < 0.3 ? chineseText(long ? 40 : 8) : englishText(long ? 70 : 14);
  if (rand() < 0.01) text = `${text} 巴黎 ${chineseText(3)}`;
  if (index % 10_000 === 7) text = `${text} ${RARE_WORD}`;
  return text;
}

async function seed_(handle: DbHandle, userId: number): Promise<number> {
  const db = handle.db;
  const started = performance.now();
  const base = Date.UTC(2026, 0, 1);
  const conversations = Math.ceil(TOTAL / PER_CONVERSATION);
  for (let c = 0; c < conversations; c += BATCH) {
    const rows: Insertable<ConversationsTable>[] = [];
    for (let i = c; i < Math.min(conversations, c + BATCH); i++) {
      const time = new Date(base + i * 60_000).toISOString();
      rows.push({
        conversation_id: `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`,
        source: 'openai_api',
        title: i % 50 === 0 ? `巴黎 trip ${i}` : `${pick(VOCABULARY)} ${pick(VOCABULARY)} ${i}`,
        user_id: userId,
        is_valid: 1,
        is_public: 0,
        current_model: 'gpt_3_5',
        create_time: time,
        update_time: time,
      });
    }
    await db.insertInto('conversations').values(rows).execute();
  }
  for (let m = 0; m < TOTAL; m += BATCH) {
    const rows: NewMessageRow[] = [];
    for (let i = m; i < Math.min(TOTAL, m + BATCH); i++) {
      const conversation = Math.floor(i / PER_CONVERSATION);
      const role = i % 2 === 0 ? 'user' : 'assistant';
      rows.push({
        id: `m-${String(i).padStart(8, '0')}`,
        conversation_id: `00000000-0000-4000-8000-${String(conversation).padStart(12, '0')}`,
        parent: i % PER_CONVERSATION === 0 ? null : `m-${String(i - 1).padStart(8, '0')}`,
        role,
        content: null,
        metadata: null,
        text: messageText(i, role),
        create_time: new Date(base + i * 1000).toISOString(),
        seq: i % PER_CONVERSATION,
      });
    }
    await db.transaction().execute((trx) => trx.insertInto('messages').values(rows).execute());
  }
  if (handle.dialect === 'postgres') {
    const { sql } = await import('kysely');
    await sql`analyze`.execute(db);
  }
  return performance.now() - started;
}

const QUERIES: { kind: string; terms: string[] }[] = [
  { kind: 'English word', terms: VOCABULARY.slice(0, 40) },
  { kind: 'common word', terms: ['the', 'and', 'with', 'that', 'for'] },
  { kind: 'rare word', terms: [RARE_WORD, 'XYLOPHON', 'lophoni'] },
  { kind: 'Chinese 2 chars', terms: ['巴黎', '东京', '天气', '文化', '历史'] },
  { kind: 'Chinese 3+ chars', terms: ['博物馆', '今天天气', '城市，历史'] },
  { kind: '1 character', terms: ['x', '巴', 'q'] },
  { kind: 'no match', terms: ['zzqqzz', '莫斯科'] },
];

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? 0;
}
const round = (n: number) => Math.round(n * 100) / 100;
function summary(times: number[]) {
  const s = [...times].sort((a, b) => a - b);
  return {
    n: s.length,
    p50: round(percentile(s, 50)),
    p95: round(percentile(s, 95)),
    max: round(s.at(-1) ?? 0),
  };
}

/** One search as the service runs it: title matches, message matches, snippets. */
async function searchOnce(handle: DbHandle, userId: number, q: string): Promise<number> {
  const repo = searchRepository(handle.db);
  const rows = [...(await repo.titles(userId, q, LIMIT)), ...(await repo.messages(userId, q, LIMIT))];
  return rows.map((r) => snippetOf(r.text, q)).filter(Boolean).length;
}

/** A streamed answer flushed 60 times as it grows to ~4,000 characters (the index follows each flush). */
async function streamingUpdates(handle: DbHandle): Promise<number[]> {
  const repo = messageRepository(handle.db);
  const times: number[] = [];
  let text = '';
  for (let i = 0; i < 60; i++) {
    text += `${englishText(10)} `;
    const started = performance.now();
    await repo.upsert([
      {
        id: 'm-streaming',
        conversation_id: '00000000-0000-4000-8000-000000000000',
        parent: 'm-00000000',
        role: 'assistant',
        content: JSON.stringify({ content_type: 'text', parts: [text] }),
        metadata: null,
        text,
        create_time: new Date().toISOString(),
        seq: 999,
      },
    ]);
    times.push(performance.now() - started);
  }
  return times;
}

async function bench(handle: DbHandle) {
  await prepareSchema(handle, true);
  const now = new Date().toISOString();
  const user = await handle.db
    .insertInto('users')
    .values({
      username: 'bench',
      nickname: 'bench',
      email: 'bench@example.com',
      hashed_password: '-',
      is_active: 1,
      is_superuser: 0,
      is_verified: 1,
      create_time: now,
      update_time: now,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  const seedMs = await seed_(handle, user.id);
  for (const q of ['the', '巴黎']) await searchOnce(handle, user.id, q); // warm-up
  const byKind: Record<string, ReturnType<typeof summary> & { hits: number }> = {};
  const all: number[] = [];
  for (const { kind, terms } of QUERIES) {
    const times: number[] = [];
    let hits = 0;
    const runs = Math.max(terms.length, Math.round(200 / QUERIES.length));
    for (let i = 0; i < runs; i++) {
      const started = performance.now();
      hits += await searchOnce(handle, user.id, terms[i % terms.length]!);
      times.push(performance.now() - started);
    }
    all.push(...times);
    byKind[kind] = { ...summary(times), hits: Math.round(hits / runs) };
  }
  return {
    seed_seconds: round(seedMs / 1000),
    all: summary(all),
    by_kind: byKind,
    streaming_flush_ms: summary(await streamingUpdates(handle)),
  };
}

const results: Record<string, unknown> = { messages: TOTAL, limit: LIMIT, time: new Date().toISOString() };

const dataDir = mkdtempSync(path.join(tmpdir(), 'cc-bench-search-'));
const sqlite = openDb({ databaseUrl: null, dataDir });
try {
  console.log(`SQLite: seeding ${TOTAL} messages…`);
  results.sqlite = await bench(sqlite);
} finally {
  await sqlite.close();
  if (KEEP) console.log(`kept the SQLite database in ${dataDir}`);
  else rmSync(dataDir, { recursive: true, force: true });
}

if (!process.argv.includes('skip-pg')) {
  const admin = new pg.Client({ connectionString: PG_BASE });
  await admin.connect();
  await admin.query('DROP DATABASE IF EXISTS cc_bench WITH (FORCE)');
  await admin.query('CREATE DATABASE cc_bench');
  const url = new URL(PG_BASE);
  url.pathname = '/cc_bench';
  const postgres = openDb({ databaseUrl: url.toString(), dataDir: tmpdir() });
  try {
    console.log(`PostgreSQL: seeding ${TOTAL} messages…`);
    results.postgres = await bench(postgres);
  } finally {
    await postgres.close();
    if (KEEP) console.log('kept the cc_bench database');
    else await admin.query('DROP DATABASE IF EXISTS cc_bench WITH (FORCE)');
    await admin.end();
  }
}

type Result = Awaited<ReturnType<typeof bench>>;
const rows: Record<string, Record<string, number | string>> = {};
for (const db of ['sqlite', 'postgres'] as const) {
  const r = results[db] as Result | undefined;
  if (!r) continue;
  rows[`${db}: all`] = { ...r.all, hits: '' };
  for (const [kind, s] of Object.entries(r.by_kind)) rows[`${db}: ${kind}`] = s;
  rows[`${db}: streaming flush`] = { ...r.streaming_flush_ms, hits: '' };
  console.log(`${db}: seeded in ${r.seed_seconds} s`);
}
console.log('\nSearch time in ms (goal: p95 ≤ 50 ms):');
console.table(rows);

const out = path.join(path.dirname(fileURLToPath(import.meta.url)), 'results');
mkdirSync(out, { recursive: true });
writeFileSync(path.join(out, 'search.json'), `${JSON.stringify(results, null, 2)}\n`);
console.log(`saved ${path.join('bench', 'results', 'search.json')}`);
