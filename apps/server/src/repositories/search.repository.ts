import { sql } from 'kysely';
import type { ExpressionBuilder, RawBuilder, SqlBool } from 'kysely';
import type { Database } from '../db/schema';
import { containsPattern, dialectOf } from './executor';
import type { Executor } from './executor';

/** Roles whose text is searched (what the user asked and what the model answered). */
export const SEARCHED_ROLES = ['user', 'assistant'] as const;

/** A message or title that contains the query, with what a result shows. */
export interface SearchRow {
  conversation_id: string;
  title: string | null;
  source: string;
  current_model: string | null;
  /** Null for a title match. */
  message_id: string | null;
  role: string | null;
  /** The message text (or the title) the snippet is cut from. */
  text: string;
  time: string;
}

/** Whether the trigram index can answer `q` (it needs three characters). */
export function trigramUsable(q: string): boolean {
  return [...q].length >= 3;
}

/**
 * The query as the databases can search it: without NUL characters, which neither can take (FTS5 fails its query
 * with "unterminated string", SQLite's LIKE stops reading its pattern there, PostgreSQL's text cannot hold one), so
 * that `fox\0` searches `fox`. A query of nothing else finds nothing.
 */
function searchable(q: string): string {
  return q.replaceAll('\u0000', '');
}

/** A condition no row meets. */
const NOTHING = sql<SqlBool>`1 = 0`;

/** An FTS5 query for the exact substring `q` (one phrase; quotes doubled). */
function ftsPhrase(q: string): string {
  return `"${q.replace(/"/g, '""')}"`;
}

/** `ch` in lower case when that is one character too (`İ`'s is two: it stays as it is). */
function lowerChar(ch: string): string {
  const lower = ch.toLowerCase();
  return [...lower].length === 1 ? lower : ch;
}

/** Each lower-case letter outside ASCII and its other-case forms (`ä` → `Ä`; `å` → `Å` and the Ångström sign). */
let upperForms: Map<string, string[]> | undefined;

function upperFormsOf(ch: string): string[] {
  if (!upperForms) {
    // Every cased letter is below U+20000 (12 ms, once).
    upperForms = new Map();
    for (let code = 0x80; code < 0x20000; code++) {
      if (code >= 0xd800 && code <= 0xdfff) continue;
      const form = String.fromCodePoint(code);
      const lower = lowerChar(form);
      if (lower !== form && lower.codePointAt(0)! >= 0x80)
        upperForms.set(lower, [...(upperForms.get(lower) ?? []), form]);
    }
  }
  return upperForms.get(ch) ?? [];
}

/**
 * `column` contains `q` on SQLite, case-insensitive beyond ASCII too: SQLite's LIKE and lower() know the case of
 * ASCII letters only (`Ü` is not `ü` to them). The query is lowered one character at a time, and in the column each
 * other-case form of the query's letters outside ASCII is replaced by its lower case (a letter the query does not
 * hold cannot be part of a match, so no other needs it): `Ünïcödé` replaces `Ü`, `Ï`, `Ö` and `É` before
 * `like '%ünïcödé%'`. An ASCII query is a plain LIKE (so the Kelvin sign is not `k` here). A LIKE '%…%' uses no
 * index either way: the rest of the query bounds the rows read.
 */
function sqliteContains(q: string, column: RawBuilder<unknown>): RawBuilder<SqlBool> {
  const lowered = [...q].map(lowerChar).join('');
  let folded = column;
  for (const ch of new Set(lowered)) {
    // ASCII letters need nothing (LIKE knows their case): an ASCII query never builds the table.
    if (ch.codePointAt(0)! < 0x80) continue;
    for (const form of upperFormsOf(ch)) folded = sql`replace(${folded}, ${form}, ${ch})`;
  }
  return sql<SqlBool>`${folded} like ${containsPattern(lowered)} escape '\\'`;
}

type MessagesEb = ExpressionBuilder<Database, 'messages'>;

/**
 * LIKE when the query has no cased letters (CJK, digits: PostgreSQL's LIKE is much cheaper than ILIKE), else
 * ILIKE; both use the pg_trgm index from three characters.
 */
function pgOperator(q: string): 'like' | 'ilike' {
  return q.toLowerCase() === q.toUpperCase() ? 'like' : 'ilike';
}

/**
 * Every upper/lower-case spelling of a short query (`ab` → `ab`, `aB`, `Ab`, `AB`; `巴黎` → itself). A case form
 * of another length is left out (`ß` is not `SS`: ILIKE, which compares lower-case forms, does not match it either).
 */
function caseVariants(q: string): string[] {
  let out = [''];
  for (const ch of q) {
    const forms = [...new Set([ch, ch.toLowerCase(), ch.toUpperCase()])].filter((f) => [...f].length === 1);
    out = out.flatMap((head) => forms.map((c) => head + c));
  }
  return out;
}

/**
 * `column` contains `q` on PostgreSQL: (I)LIKE, which the pg_trgm index answers from three characters; below that
 * LIKE of each spelling, which costs far less than ILIKE's lower-casing of every text it reads.
 */
function pgContains(q: string, column: RawBuilder<unknown>) {
  if (trigramUsable(q))
    return sql<SqlBool>`${column} ${sql.raw(pgOperator(q))} ${containsPattern(q)} escape '\\'`;
  return sql<SqlBool>`(${sql.join(
    caseVariants(q).map((v) => sql`${column} like ${containsPattern(v)} escape '\\'`),
    sql` or `,
  )})`;
}

/**
 * `messages.id` is one of a message whose text contains `q` (case-insensitive): through the FTS5 trigram index on
 * SQLite (three characters or more), the pg_trgm index on PostgreSQL, else a LIKE over the rows the rest of the
 * query already bounds.
 */
function textContains(db: Executor, q: string) {
  if (dialectOf(db) === 'postgres') return () => pgContains(q, sql.ref('messages.text'));
  if (trigramUsable(q))
    return (eb: MessagesEb) =>
      eb(
        'messages.id',
        'in',
        eb
          .selectFrom('message_search')
          .select('message_search.message_id')
          .where(sql<boolean>`message_search match ${ftsPhrase(q)}`),
      );
  return () => sqliteContains(q, sql.ref('messages.text'));
}

/**
 * SQLite: walks the FTS table newest row first (its rowid is the message's) and stops at `limit` matches of the
 * user's valid conversations: the trigram index for three characters or more, a LIKE over its text below that. The
 * joins are CROSS JOINs so that SQLite keeps that order (a common word then costs as little as a rare one).
 */
async function sqliteMessages(db: Executor, userId: number, q: string, limit: number): Promise<SearchRow[]> {
  const match = trigramUsable(q)
    ? sql`message_search match ${ftsPhrase(q)}`
    : sqliteContains(q, sql.ref('s.text'));
  const result = await sql<SearchRow>`
    select c.conversation_id, c.title, c.source, c.current_model, m.id as message_id, m.role, m.text,
      m.create_time as time
    from message_search s
    cross join messages m on m.id = s.message_id
    cross join conversations c on c.conversation_id = m.conversation_id
    where ${match} and c.user_id = ${userId} and c.is_valid = 1 and m.role in ('user', 'assistant')
    order by s.rowid desc
    limit ${limit}`.execute(db);
  return result.rows;
}

/** How far the PostgreSQL search walks the newest messages (of every owner) before it turns to an index. */
export interface SearchWindows {
  /** Messages read first (a word in about one message in a hundred is answered there). */
  first: number;
  /** At most this many in all when the first ones held some matches but too few. */
  most: number;
}

/** Measured with bench/search.ts (100,000 messages): a first window of 1,000 to 4,000 costs about the same. */
export const SEARCH_WINDOWS: SearchWindows = { first: 2000, most: 6000 };

/**
 * PostgreSQL, in steps whose cost does not hang on the planner's guess of how common `q` is (a guess drawn from a
 * random sample: the same word took 1 ms or 220 ms depending on the plan it got):
 * 1. the newest `windows.first` messages, read newest first through the time index, stopping at `limit` matches
 *    (a common word or character costs a few hundred rows);
 * 2. when they held some matches but too few, as many more as those matches say `limit` needs (at most
 *    `windows.most` in all);
 * 3. only then the older messages, through the index on the text — pg_trgm for three characters or more, the
 *    characters index below that — never a walk over every message nor a sequential scan.
 * Steps 1 and 2 read spans of creation times (ties included), the second just below the first; step 3 leaves out
 * what they found.
 */
async function postgresMessages(
  db: Executor,
  userId: number,
  q: string,
  limit: number,
  windows: SearchWindows,
): Promise<SearchRow[]> {
  const columns = sql`c.conversation_id, c.title, c.source, c.current_model, m.id as message_id, m.role, m.text,
    m.create_time as time`;
  const wanted = sql`c.user_id = ${userId} and c.is_valid = 1 and m.role in ('user', 'assistant')
    and ${pgContains(q, sql.ref('m.text'))}`;
  /** The creation time of the `n`th newest message; undefined when there are fewer. */
  const edge = async (n: number) =>
    (
      await sql<{ create_time: string }>`
        select create_time from messages order by create_time desc offset ${n - 1} limit 1`.execute(db)
    ).rows[0]?.create_time;
  /** Matches created in [from, below), read newest first; `from` undefined: every older one. */
  const walk = async (from: string | undefined, below: string | undefined, n: number) => {
    const span = sql.join(
      [
        ...(from === undefined ? [] : [sql`create_time >= ${from}`]),
        ...(below === undefined ? [] : [sql`create_time < ${below}`]),
      ],
      sql` and `,
    );
    // `offset 0` keeps the text condition out of the subquery, so that it reads the span through the time index.
    const result = await sql<SearchRow>`
      select ${columns}
      from (
        select id, conversation_id, role, text, create_time from messages
        where ${span}
        order by create_time desc
        offset 0
      ) m
      join conversations c on c.conversation_id = m.conversation_id
      where ${wanted}
      order by m.create_time desc
      limit ${n}`.execute(db);
    return result.rows;
  };

  const firstEdge = await edge(windows.first);
  if (firstEdge === undefined) {
    // Fewer messages than the first window: any plan reads few rows.
    const all = await sql<SearchRow>`
      select ${columns}
      from messages m join conversations c on c.conversation_id = m.conversation_id
      where ${wanted}
      order by m.create_time desc
      limit ${limit}`.execute(db);
    return all.rows;
  }
  const found = await walk(firstEdge, undefined, limit);
  if (found.length >= limit) return found;
  const needed = found.length > 0 ? Math.ceil((windows.first * limit) / found.length) : Infinity;
  if (needed <= windows.most) {
    const nextEdge = await edge(Math.min(windows.most, 2 * needed));
    found.push(...(await walk(nextEdge, firstEdge, limit - found.length)));
    if (found.length >= limit || nextEdge === undefined) return found;
  }
  // The characters index narrows a query too short for trigrams (each of its characters is in the text).
  const characters = trigramUsable(q)
    ? sql``
    : sql`and string_to_array(lower(text), null) @> string_to_array(lower(${q}::text), null)`;
  // Every match of the windows walked is in `found`: leaving those out bounds this step to the older messages (a
  // bound on the creation time would let the planner read them through the time index instead of the text's).
  const seen = found.length > 0 ? sql`and id not in (${sql.join(found.map((r) => r.message_id))})` : sql``;
  // The subquery (`offset 0` keeps it apart) is the index's matches among all messages; joined to the owner's
  // conversations afterwards, so that the planner cannot read the owner's messages conversation by conversation.
  const older = await withoutSequentialScans(db, (trx) =>
    sql<SearchRow>`
      select ${columns}
      from (
        select id, conversation_id, role, text, create_time from messages
        where role in ('user', 'assistant') and ${pgContains(q, sql.ref('text'))} ${characters} ${seen}
        offset 0
      ) m
      join conversations c on c.conversation_id = m.conversation_id
      where c.user_id = ${userId} and c.is_valid = 1
      order by m.create_time desc
      limit ${limit - found.length}`.execute(trx),
  );
  return [...found, ...older.rows];
}

/**
 * Runs `fn` where PostgreSQL reads no table from end to end (a table with an index on the condition is read through
 * it) and compiles nothing (JIT would cost more than the query). In a transaction of its own, which the settings
 * end with; inside a caller's transaction they would outlive the query, so they are left out there.
 */
async function withoutSequentialScans<T>(db: Executor, fn: (trx: Executor) => Promise<T>): Promise<T> {
  if (db.isTransaction) return fn(db);
  return db.transaction().execute(async (trx) => {
    await sql`select set_config('enable_seqscan', 'off', true), set_config('jit', 'off', true)`.execute(trx);
    return fn(trx);
  });
}

/** Full-text search over conversations, done by the database. */
export function searchRepository(db: Executor, windows: SearchWindows = SEARCH_WINDOWS) {
  return {
    /** The newest messages of `userId`'s valid conversations whose text contains `q`. */
    async messages(userId: number, query: string, limit: number): Promise<SearchRow[]> {
      const q = searchable(query);
      if (q === '') return [];
      if (dialectOf(db) === 'sqlite') return sqliteMessages(db, userId, q, limit);
      return postgresMessages(db, userId, q, limit, windows);
    },
    /** The newest of `userId`'s valid conversations whose title contains `q`. */
    async titles(userId: number, q: string, limit: number): Promise<SearchRow[]> {
      if (searchable(q) === '') return [];
      const rows = await db
        .selectFrom('conversations')
        .select(['conversation_id', 'title', 'source', 'current_model', 'update_time'])
        .where('user_id', '=', userId)
        .where('is_valid', '=', 1)
        .where(titleContains(db, q))
        .orderBy('update_time', 'desc')
        .limit(limit)
        .execute();
      return rows.map((r) => ({
        conversation_id: r.conversation_id,
        title: r.title,
        source: r.source,
        current_model: r.current_model,
        message_id: null,
        role: null,
        text: r.title ?? '',
        time: r.update_time,
      }));
    },
  };
}

/**
 * `conversations.title` contains `q`, case-insensitive (ILIKE on PostgreSQL, through its pg_trgm index; on SQLite
 * beyond ASCII too, `sqliteContains`).
 */
export function titleContains(db: Executor, query: string) {
  const q = searchable(query);
  if (q === '') return () => NOTHING;
  if (dialectOf(db) === 'postgres')
    return (eb: ExpressionBuilder<Database, 'conversations'>) =>
      eb('conversations.title', pgOperator(q), sql<string>`${containsPattern(q)} escape '\\'`);
  return () => sqliteContains(q, sql.ref('conversations.title'));
}

/** Ids of the conversations with a user or assistant message whose text contains `q` (admin search). */
export function conversationsWithText(db: Executor, query: string) {
  const q = searchable(query);
  return db
    .selectFrom('messages')
    .select('messages.conversation_id')
    .where('messages.role', 'in', SEARCHED_ROLES)
    .where(q === '' ? () => NOTHING : textContains(db, q));
}
