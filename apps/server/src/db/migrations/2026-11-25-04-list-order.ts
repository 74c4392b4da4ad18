import type { AnyDb } from './helpers';

/**
 * The admin conversation list's order (last update, then id) as one index, so a page — a deep one too — walks the
 * index instead of sorting every row.
 */
export function listOrder() {
  return {
    async up(db: AnyDb) {
      await db.schema
        .createIndex('conversations_update_id_idx')
        .on('conversations')
        .columns(['update_time', 'id'])
        .execute();
    },
    async down(db: AnyDb) {
      await db.schema.dropIndex('conversations_update_id_idx').execute();
    },
  };
}
