import { sql } from 'kysely';
import type { ExpressionBuilder } from 'kysely';
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

/** Whether the trigram index can answer `q` (it needs three characters; shorter queries scan the owner's rows). */
export function trigramUsable(q: string): boolean {
  return [...q].length >= 3;
}

/** An FTS5 query for the exact substring `q` (one phrase; quotes doubled). */
function ftsPhrase(q: string): string {
  return `"${q.replace(/"/g, '""')}"`;
}

type MessagesEb = ExpressionBuilder<Database, 'messages'>;

/**
 * LIKE when the query has no cased letters (CJK, digits: PostgreSQL's LIKE is much cheaper than ILIKE), else
 * ILIKE; both use the pg_trgm index from three characters.
 */
function pgOperator(q: string): 'like' | 'ilike' {
  return q.toLowerCase() === q.toUpperCase() ? 'like' : 'ilike';
}

/** Every upper/lower-case spelling of a short query (`ab` → `ab`, `aB`, `Ab`, `AB`; `巴黎` → itself). */
function caseVariants(q: string): string[] {
  let out = [''];
  for (const ch of q) {
    const forms = [...new Set([ch.toLowerCase(), ch.toUpperCase()])];
    out = out.flatMap((head) => forms.map((c) => head + c));
  }
  return out;
}

/**
 * `messages.id` is one of a message whose text contains `q` (case-insensitive): through the FTS5 trigram index on
 * SQLite (three characters or more), the pg_trgm index on PostgreSQL, else a LIKE over the rows the rest of the
 * query already bounds.
 */
function textContains(db: Executor, q: string) {
  const pattern = containsPattern(q);
  if (dialectOf(db) === 'postgres') {
    if (trigramUsable(q))
      return (eb: MessagesEb) => eb('messages.text', pgOperator(q), sql<string>`${pattern} escape '\\'`);
    // No trigram to look up: a scan, where LIKE of each spelling costs far less than ILIKE's lower-casing.
    return (eb: MessagesEb) =>
      eb.or(
        caseVariants(q).map((v) =>
          eb('messages.text', 'like', sql<string>`${containsPattern(v)} escape '\\'`),
        ),
      );
  }
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
  return (eb: MessagesEb) => eb('messages.text', 'like', sql<string>`${pattern} escape '\\'`);
}

/**
 * SQLite: walks the FTS table newest row first (its rowid is the message's) and stops at `limit` matches of the
 * user's valid conversations: the trigram index for three characters or more, a LIKE over its text below that. The
 * joins are CROSS JOINs so that SQLite keeps that order (a common word then costs as little as a rare one).
 */
async function sqliteMessages(db: Executor, userId: number, q: string, limit: number): Promise<SearchRow[]> {
  const match = trigramUsable(q)
    ? sql`message_search match ${ftsPhrase(q)}`
    : sql`s.text like ${containsPattern(q)} escape '\\'`;
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

/** Full-text search over conversations, done by the database. */
export function searchRepository(db: Executor) {
  return {
    /** The newest messages of `userId`'s valid conversations whose text contains `q`. */
    messages(userId: number, q: string, limit: number): Promise<SearchRow[]> {
      if (dialectOf(db) === 'sqlite') return sqliteMessages(db, userId, q, limit);
      return db
        .selectFrom('messages')
        .innerJoin('conversations', 'conversations.conversation_id', 'messages.conversation_id')
        .select([
          'conversations.conversation_id',
          'conversations.title',
          'conversations.source',
          'conversations.current_model',
          'messages.id as message_id',
          'messages.role',
          'messages.text',
          'messages.create_time as time',
        ])
        .where('conversations.user_id', '=', userId)
        .where('conversations.is_valid', '=', 1)
        .where('messages.role', 'in', SEARCHED_ROLES)
        .where(textContains(db, q))
        .orderBy('messages.create_time', 'desc')
        .limit(limit)
        .execute();
    },
    /** The newest of `userId`'s valid conversations whose title contains `q`. */
    async titles(userId: number, q: string, limit: number): Promise<SearchRow[]> {
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

/** `conversations.title` contains `q`, case-insensitive (ILIKE on PostgreSQL, through its pg_trgm index). */
export function titleContains(db: Executor, q: string) {
  const pattern = containsPattern(q);
  if (dialectOf(db) === 'postgres')
    return (eb: ExpressionBuilder<Database, 'conversations'>) =>
      eb('conversations.title', pgOperator(q), sql<string>`${pattern} escape '\\'`);
  return (eb: ExpressionBuilder<Database, 'conversations'>) =>
    eb(eb.fn('lower', ['conversations.title']), 'like', sql<string>`${pattern.toLowerCase()} escape '\\'`);
}

/** Ids of the conversations with a user or assistant message whose text contains `q` (admin search). */
export function conversationsWithText(db: Executor, q: string) {
  return db
    .selectFrom('messages')
    .select('messages.conversation_id')
    .where('messages.role', 'in', SEARCHED_ROLES)
    .where(textContains(db, q));
}
