import { sql } from 'kysely';
import type { Insertable } from 'kysely';
import type { MessageRow, MessagesTable } from '../db/schema';
import type { Executor } from './executor';

export type NewMessageRow = Insertable<MessagesTable>;

/** The `messages` table: a tree per conversation by `parent` links; children are derived, never stored. */
export function messageRepository(db: Executor) {
  return {
    listByConversation(conversationId: string): Promise<MessageRow[]> {
      return db
        .selectFrom('messages')
        .selectAll()
        .where('conversation_id', '=', conversationId)
        .orderBy('create_time')
        .orderBy('seq')
        .execute();
    },
    findById(id: string): Promise<MessageRow | undefined> {
      return db.selectFrom('messages').selectAll().where('id', '=', id).executeTakeFirst();
    },
    /**
     * Inserts or replaces messages (streamed answers are flushed repeatedly under the same id; a web conversation
     * refreshed from the upstream brings the upstream's parents, e.g. the root above a first question).
     */
    async upsert(rows: NewMessageRow[]): Promise<void> {
      for (const row of rows) {
        await db
          .insertInto('messages')
          .values(row)
          .onConflict((oc) =>
            oc.column('id').doUpdateSet({
              content: row.content,
              metadata: row.metadata,
              text: row.text,
              model: row.model,
              author_name: row.author_name,
              role: row.role,
              parent: row.parent,
            }),
          )
          .execute();
      }
    },
    /**
     * Whether an upstream file id appears (as an attachment id or a `…://<id>` pointer) in the content or metadata
     * of a message of a conversation owned by `ownerId` (null = any conversation).
     */
    async mentionsFile(fileId: string, ownerId: number | null): Promise<boolean> {
      const escaped = fileId.replace(/[!%_]/g, (c) => `!${c}`);
      const patterns = [`%"${escaped}"%`, `%://${escaped}"%`];
      let q = db
        .selectFrom('messages')
        .innerJoin('conversations', 'conversations.conversation_id', 'messages.conversation_id')
        .select('messages.id')
        .where((eb) =>
          eb.or(
            patterns.flatMap((p) => [
              eb(sql`messages.content`, 'like', sql`${p} escape '!'`),
              eb(sql`messages.metadata`, 'like', sql`${p} escape '!'`),
            ]),
          ),
        );
      if (ownerId !== null) q = q.where('conversations.user_id', '=', ownerId);
      return !!(await q.limit(1).executeTakeFirst());
    },
  };
}
