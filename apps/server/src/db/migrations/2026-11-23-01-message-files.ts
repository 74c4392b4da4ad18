import type { AnyDb } from './helpers';

/** Messages read per backfill batch. */
const BATCH = 500;
const POINTER = /^[a-z][a-z0-9+.-]*:\/\/(file[-_][A-Za-z0-9_-]{1,128})$/i;

const isRecord = (v: unknown): v is Record<string, unknown> =>
  !!v && typeof v === 'object' && !Array.isArray(v);
const listOf = (v: unknown): unknown[] => (Array.isArray(v) ? (v as unknown[]) : []);

function parsed(json: unknown): unknown {
  if (typeof json !== 'string' || !json) return null;
  try {
    return JSON.parse(json) as unknown;
  } catch {
    return null;
  }
}

/**
 * The file ids an assistant or tool message points at (image parts, code-interpreter images). A frozen copy of
 * `pointedFileIds` in message.repository.ts as it was when this migration landed: a migration never changes.
 */
function pointedFileIds(content: unknown, metadata: unknown): string[] {
  const ids = new Set<string>();
  const add = (pointer: unknown) => {
    const id = typeof pointer === 'string' ? POINTER.exec(pointer)?.[1] : undefined;
    if (id) ids.add(id);
  };
  const c = parsed(content);
  for (const part of isRecord(c) ? listOf(c.parts) : []) if (isRecord(part)) add(part.asset_pointer);
  const m = parsed(metadata);
  const aggregate = isRecord(m) ? m.aggregate_result : null;
  for (const x of isRecord(aggregate) ? listOf(aggregate.messages) : [])
    if (isRecord(x) && x.message_type === 'image') add(x.image_url);
  return [...ids];
}

/**
 * `message_files`: the upstream files stored assistant and tool messages point at. File access through a
 * conversation reads this table instead of searching message text (which users type). Filled for the messages
 * already stored.
 */
export function messageFiles() {
  return {
    async up(db: AnyDb) {
      await db.schema
        .createTable('message_files')
        .addColumn('message_id', 'varchar(64)', (c) =>
          c.notNull().references('messages.id').onDelete('cascade'),
        )
        .addColumn('file_id', 'varchar(160)', (c) => c.notNull())
        .addPrimaryKeyConstraint('message_files_pk', ['message_id', 'file_id'])
        .execute();
      await db.schema.createIndex('message_files_file_idx').on('message_files').column('file_id').execute();

      let after = '';
      for (;;) {
        const rows = (await db
          .selectFrom('messages')
          .select(['id', 'content', 'metadata'])
          .where('role', 'in', ['assistant', 'tool'])
          .where('id', '>', after)
          .orderBy('id')
          .limit(BATCH)
          .execute()) as { id: string; content: unknown; metadata: unknown }[];
        if (rows.length === 0) break;
        const values = rows.flatMap((r) =>
          pointedFileIds(r.content, r.metadata).map((file_id) => ({ message_id: r.id, file_id })),
        );
        if (values.length > 0) await db.insertInto('message_files').values(values).execute();
        after = rows[rows.length - 1]!.id;
      }
    },
    async down(db: AnyDb) {
      await db.schema.dropTable('message_files').execute();
    },
  };
}
