import type { Insertable } from 'kysely';
import { OpenaiWebFileId } from '@cc/contracts';
import type { MessageRow, MessagesTable } from '../db/schema';
import { preparedRow } from '../db/prepared';
import type { NoParams } from '../db/prepared';
import type { Executor } from './executor';

export type NewMessageRow = Insertable<MessagesTable>;

/** Every answer's writes (db/prepared.ts): a streamed answer is written again under its id as it grows. */
const upsertRow = preparedRow((db, _: NoParams, row: NewMessageRow) =>
  db
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
        streaming: row.streaming ?? 0,
      }),
    ),
);

/** Roles whose content comes from the upstream, never from what a user typed. */
const POINTING_ROLES = new Set(['assistant', 'tool']);
const POINTER = /^[a-z][a-z0-9+.-]*:\/\/(.+)$/i;

function fileIdOf(pointer: unknown): string | null {
  if (typeof pointer !== 'string') return null;
  const id = POINTER.exec(pointer)?.[1];
  return id && OpenaiWebFileId.safeParse(id).success ? id : null;
}

function parsed(json: string | null | undefined): unknown {
  if (!json) return null;
  try {
    return JSON.parse(json) as unknown;
  } catch {
    return null;
  }
}

const isRecord = (v: unknown): v is Record<string, unknown> =>
  !!v && typeof v === 'object' && !Array.isArray(v);
const listOf = (v: unknown): unknown[] => (Array.isArray(v) ? (v as unknown[]) : []);

/**
 * The upstream files a message points at, as structured data only: image parts (`asset_pointer`) and
 * code-interpreter images (`metadata.aggregate_result.messages[].image_url`) of assistant and tool messages.
 * User messages and any text never count: a user can type anything there.
 */
export function pointedFileIds(row: Pick<NewMessageRow, 'role' | 'content' | 'metadata'>): string[] {
  if (!POINTING_ROLES.has(row.role)) return [];
  const ids = new Set<string>();
  const content = parsed(row.content);
  for (const part of isRecord(content) ? listOf(content.parts) : []) {
    const id = isRecord(part) ? fileIdOf(part.asset_pointer) : null;
    if (id) ids.add(id);
  }
  const metadata = parsed(row.metadata);
  const aggregate = isRecord(metadata) ? metadata.aggregate_result : null;
  for (const m of isRecord(aggregate) ? listOf(aggregate.messages) : []) {
    const id = isRecord(m) && m.message_type === 'image' ? fileIdOf(m.image_url) : null;
    if (id) ids.add(id);
  }
  return [...ids];
}

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
    /** Which of these message ids are stored already, with their conversation. */
    async findConversationsOf(ids: string[]): Promise<Pick<MessageRow, 'id' | 'conversation_id'>[]> {
      const found: Pick<MessageRow, 'id' | 'conversation_id'>[] = [];
      for (let i = 0; i < ids.length; i += 500) {
        const chunk = ids.slice(i, i + 500);
        found.push(
          ...(await db
            .selectFrom('messages')
            .select(['id', 'conversation_id'])
            .where('id', 'in', chunk)
            .execute()),
        );
      }
      return found;
    },
    findById(id: string): Promise<MessageRow | undefined> {
      return db.selectFrom('messages').selectAll().where('id', '=', id).executeTakeFirst();
    },
    /** The conversation's answer ended: its messages written while it streamed are finished (and searchable). */
    async finishStreaming(conversationId: string): Promise<void> {
      await db
        .updateTable('messages')
        .set({ streaming: 0 })
        .where('conversation_id', '=', conversationId)
        .where('streaming', '=', 1)
        .execute();
    },
    /**
     * Inserts or replaces messages (streamed answers are flushed repeatedly under the same id; a web conversation
     * refreshed from the upstream brings the upstream's parents, e.g. the root above a first question), and with each
     * its `message_files` rows (what `pointedFileIds` finds), in one transaction. The only write path of both tables.
     * `linkless`: ids the caller knows have no links stored (it wrote the row so itself, or the row is new); such a
     * row written without files has no links to replace. Returns the ids of the rows now stored without any link.
     */
    async upsert(rows: NewMessageRow[], linkless: ReadonlySet<string> = new Set()): Promise<string[]> {
      const withoutLinks: string[] = [];
      const write = async (trx: Executor) => {
        for (const row of rows) {
          await upsertRow.run(trx, {}, row);
          const fileIds = pointedFileIds(row);
          if (fileIds.length === 0 && linkless.has(row.id)) {
            withoutLinks.push(row.id);
            continue;
          }
          await trx.deleteFrom('message_files').where('message_id', '=', row.id).execute();
          if (fileIds.length > 0) {
            await trx
              .insertInto('message_files')
              .values(fileIds.map((file_id) => ({ message_id: row.id, file_id })))
              .execute();
          } else withoutLinks.push(row.id);
        }
      };
      if (rows.length === 0) return [];
      if (db.isTransaction) await write(db);
      else await db.transaction().execute(write);
      return withoutLinks;
    },
    /** Whether a message of a conversation owned by `ownerId` points at the upstream file `fileId`. */
    async pointsToFileFor(fileId: string, ownerId: number): Promise<boolean> {
      const row = await db
        .selectFrom('message_files')
        .innerJoin('messages', 'messages.id', 'message_files.message_id')
        .innerJoin('conversations', 'conversations.conversation_id', 'messages.conversation_id')
        .select('message_files.message_id')
        .where('message_files.file_id', '=', fileId)
        .where('conversations.user_id', '=', ownerId)
        .limit(1)
        .executeTakeFirst();
      return !!row;
    },
  };
}
