import { sql } from 'kysely';
import type { DialectName } from '../client';
import type { AnyDb } from './helpers';

/**
 * `messages.streaming`: 1 while an answer is still arriving (the once-a-second writes of a stream), 0 once the
 * answer ended (the session's own last write, or the sweep that settles an interrupted ask). SQLite's search index
 * (FTS5, trigram) takes a message when it is finished instead of on every write of a growing answer: re-indexing
 * the whole text once a second per stream was the largest database cost of streaming.
 */
export function searchWhenFinished(dialect: DialectName) {
  return {
    async up(db: AnyDb) {
      await db.schema
        .alterTable('messages')
        .addColumn('streaming', 'integer', (c) => c.notNull().defaultTo(0))
        .execute();
      if (dialect === 'postgres') return;
      await sql`drop trigger message_search_insert`.execute(db);
      await sql`drop trigger message_search_update`.execute(db);
      await sql`create trigger message_search_insert after insert on messages
        when new.role in ('user', 'assistant') and new.streaming = 0
        begin
          insert into message_search (rowid, text, message_id, conversation_id)
          values (new.rowid, new.text, new.id, new.conversation_id);
        end`.execute(db);
      await sql`create trigger message_search_update after update of text, role, streaming on messages
        when new.streaming = 0
          and (old.text is not new.text or old.role is not new.role or old.streaming <> 0)
        begin
          delete from message_search where rowid = old.rowid;
          insert into message_search (rowid, text, message_id, conversation_id)
          select new.rowid, new.text, new.id, new.conversation_id where new.role in ('user', 'assistant');
        end`.execute(db);
    },
    async down(db: AnyDb) {
      if (dialect === 'sqlite') {
        await sql`drop trigger message_search_insert`.execute(db);
        await sql`drop trigger message_search_update`.execute(db);
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
        // Messages left mid-stream were not indexed: the old triggers expect every message in the index.
        await sql`insert into message_search (rowid, text, message_id, conversation_id)
          select rowid, text, id, conversation_id from messages
          where streaming = 1 and role in ('user', 'assistant')`.execute(db);
      }
      await db.schema.alterTable('messages').dropColumn('streaming').execute();
    },
  };
}
