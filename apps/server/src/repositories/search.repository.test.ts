import { Kysely, PostgresDialect, sql } from 'kysely';
import type { CompiledQuery } from 'kysely';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../db/schema';
import { createTestApp } from '../test/harness';
import type { TestApp } from '../test/harness';
import { conversationRepository } from './conversation.repository';
import { SEARCH_WINDOWS, searchRepository } from './search.repository';
import type { SearchRow, SearchWindows } from './search.repository';

let t: TestApp;
let ownerId: number;

/** What was stored, to work out the expected answers. */
interface Seeded {
  id: string;
  text: string;
  time: string;
  /** A user or assistant message of the owner's valid conversations. */
  searchable: boolean;
}
const seeded: Seeded[] = [];
const TOTAL = 3000;
/** Messages 1500 to 1505 share one creation time; so do 2965 to 2975, across the first window below. */
const TIED = [
  [1500, 1505],
  [2965, 2975],
] as const;
/** Small windows, so that a few thousand messages go through every step of the PostgreSQL search. */
const SMALL: SearchWindows = { first: 30, most: 120 };

function textOf(i: number): string {
  const words = ['alpha', `note ${i}`];
  if (i % 8 === 0) words.push('charlie'); // Too rare for the first window, common enough for the second.
  if (i % 20 === 0) words.push('delta'); // Rarer: the index answers.
  if (i % 25 === 0 || (i >= 2965 && i <= 2975)) words.push('golf');
  const rare: Record<number, string> = {
    5: 'Echo one',
    7: 'a xenon lamp',
    9: '我想去巴黎',
    11: '巴士站',
    13: '黎明',
    15: 'Straße',
    17: 'ECHO two',
    19: 'THE BOSS',
    21: '莫 alone',
    23: '斯 alone',
    60: 'echo three',
  };
  if (rare[i]) words.push(rare[i]);
  return words.join(' ');
}

function timeOf(i: number): string {
  const tie = TIED.find(([from, to]) => i >= from && i <= to);
  return new Date(Date.UTC(2026, 0, 1) + (tie ? tie[0] : i) * 1000).toISOString();
}

beforeAll(async () => {
  t = await createTestApp();
  const db = t.ctx.dbHandle.db;
  const owner = await t.createUser();
  const other = await t.createUser();
  ownerId = owner.row.id;
  const now = new Date().toISOString();
  const conversation = (id: string, userId: number, valid: boolean) => ({
    conversation_id: id,
    source: 'openai_api',
    title: 'Chat',
    user_id: userId,
    is_valid: valid ? 1 : 0,
    is_public: 0,
    create_time: now,
    update_time: now,
  });
  await db
    .insertInto('conversations')
    .values([
      ...[0, 1, 2, 3, 4].map((n) => conversation(`own-${n}`, owner.row.id, true)),
      conversation('own-deleted', owner.row.id, false),
      conversation('theirs', other.row.id, true),
    ])
    .execute();
  for (let from = 0; from < TOTAL; from += 500) {
    const rows = [];
    for (let i = from; i < from + 500; i++) {
      const conversationId = i % 37 === 0 ? 'own-deleted' : i % 41 === 0 ? 'theirs' : `own-${i % 5}`;
      const role = i % 50 === 25 ? 'system' : i % 2 === 0 ? 'user' : 'assistant';
      const row = {
        id: `m-${String(i).padStart(5, '0')}`,
        conversation_id: conversationId,
        parent: null,
        role,
        content: null,
        metadata: null,
        text: textOf(i),
        create_time: timeOf(i),
        seq: i,
      };
      rows.push(row);
      seeded.push({
        id: row.id,
        text: row.text,
        time: row.create_time,
        searchable:
          conversationId.startsWith('own-') && conversationId !== 'own-deleted' && role !== 'system',
      });
    }
    await db.insertInto('messages').values(rows).execute();
  }
  // The statistics autovacuum keeps on a live database.
  if (t.ctx.dbHandle.dialect === 'postgres') await sql`analyze`.execute(db);
});
afterAll(() => t.close());

/** The owner's matches for `q` (case-insensitive), newest first. */
function matches(q: string): Seeded[] {
  return seeded
    .filter((m) => m.searchable && m.text.toLowerCase().includes(q.toLowerCase()))
    .sort((a, b) => b.time.localeCompare(a.time));
}

/** `rows` are the `limit` newest matches of `q`: the same creation times, each a match, none twice. */
function expectNewest(rows: SearchRow[], q: string, limit: number) {
  const all = matches(q);
  expect(
    rows.map((r) => r.time),
    q,
  ).toEqual(all.slice(0, limit).map((m) => m.time));
  expect(new Set(rows.map((r) => r.message_id)).size, q).toBe(rows.length);
  for (const r of rows) expect(all.find((m) => m.id === r.message_id)?.time, q).toBe(r.time);
}

const QUERIES = [
  'alpha',
  'ALPHA',
  'charlie',
  'delta',
  'echo',
  'ECHO',
  'golf',
  'x',
  'X',
  '巴黎',
  '巴',
  '莫斯',
  'ß',
  'not anywhere',
];

describe('searchRepository.messages', () => {
  it('answers the newest matches of the owner, whichever step of the search finds them', async () => {
    for (const windows of [SMALL, SEARCH_WINDOWS]) {
      const repo = searchRepository(t.ctx.dbHandle.db, windows);
      for (const q of QUERIES)
        for (const limit of [1, 10, 50]) expectNewest(await repo.messages(ownerId, q, limit), q, limit);
    }
  });

  it('finds every message of a creation time shared across a window edge, once', async () => {
    const repo = searchRepository(t.ctx.dbHandle.db, { first: 30, most: 30 });
    const rows = await repo.messages(ownerId, 'golf', 200);
    expect(rows.length).toBeGreaterThan(50);
    expectNewest(rows, 'golf', 200);
  });

  it('matches a short query by its own case forms only (ß is not SS)', async () => {
    const ids = (await searchRepository(t.ctx.dbHandle.db, SMALL).messages(ownerId, 'ß', 10)).map(
      (r) => r.message_id,
    );
    expect(ids).toEqual(['m-00015']);
  });
});

describe('the query text', () => {
  const TITLE = 'Ünïcödé ÄÖÜ Straße 巴黎 Emoji';

  beforeAll(async () => {
    const now = new Date().toISOString();
    // No messages: the message searches above keep their answers.
    await t.ctx.dbHandle.db
      .insertInto('conversations')
      .values({
        conversation_id: 'own-unicode',
        source: 'openai_api',
        title: TITLE,
        user_id: ownerId,
        is_valid: 1,
        is_public: 0,
        create_time: now,
        update_time: now,
      })
      .execute();
  });

  it('drops a NUL (which neither database can search): fox\\0 searches fox, NULs alone find nothing', async () => {
    const repo = searchRepository(t.ctx.dbHandle.db, SMALL);
    for (const [q, as] of [
      ['alpha\0', 'alpha'],
      ['de\0', 'de'],
      ['\0ec\0ho', 'echo'],
      ['x\0', 'x'],
      ['\0巴黎', '巴黎'],
    ] as const)
      expectNewest(await repo.messages(ownerId, q, 10), as, 10);
    expect((await repo.titles(ownerId, 'Chat\0', 50)).map((r) => r.conversation_id).sort()).toEqual([
      'own-0',
      'own-1',
      'own-2',
      'own-3',
      'own-4',
    ]);
    for (const q of ['\0', '\0\0\0']) {
      expect(await repo.messages(ownerId, q, 10), JSON.stringify(q)).toEqual([]);
      expect(await repo.titles(ownerId, q, 10), JSON.stringify(q)).toEqual([]);
    }
    // The admin list's filter (title, message text or id prefix).
    const conversations = conversationRepository(t.ctx.dbHandle.db);
    expect(await conversations.countMatching({ matching: 'golf\0' })).toBe(
      await conversations.countMatching({ matching: 'golf' }),
    );
    expect(await conversations.countMatching({ matching: 'go\0lf' })).toBeGreaterThan(0);
    expect(await conversations.countMatching({ matching: '\0\0\0' })).toBe(0);
  });

  it('finds a title by its letters outside ASCII in any case', async () => {
    const repo = searchRepository(t.ctx.dbHandle.db, SMALL);
    const conversations = conversationRepository(t.ctx.dbHandle.db);
    for (const q of [
      'Ünïcödé',
      'ünïcödé',
      'ÜNÏCÖDÉ',
      'ÄÖÜ',
      'äöü',
      'Äöü',
      'ü',
      'Ö',
      'ïc',
      'Straße',
      'STRAẞE',
      '巴',
    ]) {
      expect(
        (await repo.titles(ownerId, q, 10)).map((r) => r.conversation_id),
        q,
      ).toEqual(['own-unicode']);
      // The admin list's filter (messages hold Straße and 巴 too).
      expect(
        (await conversations.list({ matching: q })).map((c) => c.conversation_id),
        q,
      ).toContain('own-unicode');
    }
    // Only the letters themselves: not ß for SS, nor a letter for another.
    for (const q of ['STRASSE', 'äöu', 'unicode']) expect(await repo.titles(ownerId, q, 10), q).toEqual([]);
  });

  it('takes a long query of many different letters', async () => {
    // Every letter with an other-case form outside ASCII is a replace() around the title on SQLite.
    const capitals = [];
    for (let code = 0x100; capitals.length < 256; code++) {
      const ch = String.fromCodePoint(code);
      if (ch.toLowerCase() !== ch && ch.toLowerCase().length === 1) capitals.push(ch);
    }
    const q = capitals.join('');
    expect(await searchRepository(t.ctx.dbHandle.db).titles(ownerId, q, 10)).toEqual([]);
    expect(await conversationRepository(t.ctx.dbHandle.db).countMatching({ matching: q })).toBe(0);
  });
});

/** Rows of `messages` a plan read: returned, or thrown away by a filter or an index recheck. */
function rowsRead(plan: Record<string, unknown>): number {
  const loops = Number(plan['Actual Loops'] ?? 1);
  const own =
    plan['Relation Name'] === 'messages'
      ? (Number(plan['Actual Rows'] ?? 0) +
          Number(plan['Rows Removed by Filter'] ?? 0) +
          Number(plan['Rows Removed by Index Recheck'] ?? 0)) *
        loops
      : 0;
  const children = (plan.Plans as Record<string, unknown>[] | undefined) ?? [];
  return own + children.reduce((sum, child) => sum + rowsRead(child), 0);
}

describe.runIf(process.env.CC_TEST_DATABASE_URL)('searchRepository.messages on PostgreSQL', () => {
  it('reads a bounded part of the messages for a rare word, character or two-character word', async () => {
    const pool = new pg.Pool({ connectionString: t.database.url!, max: 1 });
    const captured: CompiledQuery[] = [];
    const logged = new Kysely<Database>({
      dialect: new PostgresDialect({ pool }),
      log: (event) => {
        if (event.level === 'query') captured.push(event.query);
      },
    });
    const replay = new pg.Client({ connectionString: t.database.url! });
    await replay.connect();
    try {
      const windows = { first: 100, most: 400 };
      for (const q of ['x', '莫斯', 'echo', 'alpha']) {
        captured.length = 0;
        expectNewest(await searchRepository(logged, windows).messages(ownerId, q, 10), q, 10);
        // The same statements again, in one transaction (the planner settings they make stay in it), each measured.
        let read = 0;
        await replay.query('begin');
        for (const query of captured) {
          if (/^\s*(begin|commit|rollback)\b/i.test(query.sql)) continue;
          const result = await replay.query<{ 'QUERY PLAN': { Plan: Record<string, unknown> }[] }>(
            `explain (analyze, format json) ${query.sql}`,
            [...query.parameters],
          );
          read += rowsRead(result.rows[0]!['QUERY PLAN'][0]!.Plan);
        }
        await replay.query('rollback');
        // The newest windows and the index's few candidates, never every message.
        expect(read, q).toBeLessThan(TOTAL / 4);
      }
    } finally {
      await replay.end();
      await logged.destroy();
    }
  });
});
