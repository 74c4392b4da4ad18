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
 * `messages.id` is one of a message whose text contains `q` (case-insensitive): through the FTS5 trigram index on
 * SQLite (three characters or more), the pg_trgm index on PostgreSQL (ILIKE), else a LIKE over the rows the rest of
 * the query already bounds.
 */
function textContains(db: Executor, q: string) {
  const pattern = containsPattern(q);
  if (dialectOf(db) === 'postgres')
    return (eb: MessagesEb) => eb('messages.text', 'ilike', sql<string>`${pattern} escape '\\'`);
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

/** Full-text search over conversations, done by the database. */
export function searchRepository(db: Executor) {
  return {
    /** The newest messages of `userId`'s valid conversations whose text contains `q`. */
    messages(userId: number, q: string, limit: number): Promise<SearchRow[]> {
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
        .orderBy('messages.id')
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
      eb('conversations.title', 'ilike', sql<string>`${pattern} escape '\\'`);
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
