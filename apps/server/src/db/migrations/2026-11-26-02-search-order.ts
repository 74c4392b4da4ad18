import { sql } from 'kysely';
import type { DialectName } from '../client';
import type { AnyDb } from './helpers';

/**
 * PostgreSQL: an index of the characters of each user and assistant message (lower-cased), for searches too short
 * for pg_trgm's trigrams — one or two characters, such as a two-character Chinese word. Search reads the newest
 * messages first and turns to this index (or the trigram index) only for the older ones, so a rare short query no
 * longer reads every message. SQLite keeps its FTS5 table as it is.
 */
export function searchOrder(dialect: DialectName) {
  return {
    async up(db: AnyDb) {
      if (dialect !== 'postgres') return;
      await sql`create index messages_text_chars_idx on messages
        using gin ((string_to_array(lower(text), null)))
        where role in ('user', 'assistant')`.execute(db);
    },
    async down(db: AnyDb) {
      if (dialect !== 'postgres') return;
      await sql`drop index if exists messages_text_chars_idx`.execute(db);
    },
  };
}
