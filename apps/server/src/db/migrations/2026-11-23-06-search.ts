import { sql } from 'kysely';
import type { DialectName } from '../client';
import type { AnyDb } from './helpers';

/**
 * Full-text search over message text (user and assistant messages) and titles, kept by the database.
 *
 * SQLite: `message_search`, an FTS5 table with the trigram tokenizer (substring matches, CJK included, case-folded),
 * keyed by the message's rowid and kept current by triggers on `messages`: a row written, its text or role changed,
 * or the message removed (also through the conversation's cascade). A streamed answer is re-indexed only when its
 * text changed. Filled for the messages already stored.
 *
 * PostgreSQL: pg_trgm GIN indexes on `messages.text` (user and assistant messages) and `conversations.title`, used
 * by (I)LIKE '%q%' for queries of three characters or more, and an index on `messages.create_time` for reading the
 * newest messages first (a common word or a short query stops after a page of matches).
 */
export function search(dialect: DialectName) {
  return {
    async up(db: AnyDb) {
      if (dialect === 'postgres') {
        await sql`create extension if not exists pg_trgm`.execute(db);
        await sql`create index messages_text_trgm_idx on messages using gin (text gin_trgm_ops)
          where role in ('user', 'assistant')`.execute(db);
        // Newest messages first: a common word is answered from the first rows of this index.
        await sql`create index messages_time_idx on messages (create_time)`.execute(db);
        await sql`create index conversations_title_trgm_idx on conversations using gin (title gin_trgm_ops)`.execute(
          db,
        );
        return;
      }
      await sql`create virtual table message_search using fts5(
        text, message_id unindexed, conversation_id unindexed, tokenize = 'trigram'
      )`.execute(db);
      await sql`create trigger message_search_insert after insert on messages
        when new.role in ('user', 'assistant')
        begin
          insert into message_search (rowid, text, message_id, conversation_id)
          values (new.rowid, new.text, new.id, new.conversation_id);
        end`.execute(db);
      await sql`create trigger message_search_update after update of text, role on messages
        when old.text is not new.text or old.role is not new.role
        begin
          delete from message_search where rowid = old.rowid;
          insert into message_search (rowid, text, message_id, conversation_id)
          select new.rowid, new.text, new.id, new.conversation_id where new.role in ('user', 'assistant');
        end`.execute(db);
      await sql`create trigger message_search_delete after delete on messages
        begin
          delete from message_search where rowid = old.rowid;
        end`.execute(db);
      await sql`insert into message_search (rowid, text, message_id, conversation_id)
        select rowid, text, id, conversation_id from messages where role in ('user', 'assistant')`.execute(
        db,
      );
    },
    async down(db: AnyDb) {
      if (dialect === 'postgres') {
        await sql`drop index if exists conversations_title_trgm_idx`.execute(db);
        await sql`drop index if exists messages_text_trgm_idx`.execute(db);
        await sql`drop index if exists messages_time_idx`.execute(db);
        return;
      }
      for (const t of ['message_search_delete', 'message_search_update', 'message_search_insert'])
        await sql`drop trigger if exists ${sql.raw(t)}`.execute(db);
      await sql`drop table if exists message_search`.execute(db);
    },
  };
}
