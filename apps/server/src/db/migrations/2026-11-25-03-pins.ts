import type { AnyDb } from './helpers';

/**
 * Pinned conversations: `pinned_at` (UTC ISO time, null = not pinned) keeps a pin across reloads and devices. The
 * owner's list is paged by (pinned, update_time, id), so one index serves its first page and every later one.
 */
export function pins() {
  return {
    async up(db: AnyDb) {
      await db.schema.alterTable('conversations').addColumn('pinned_at', 'varchar(32)').execute();
      await db.schema
        .createIndex('conversations_owner_list_idx')
        .on('conversations')
        .columns(['user_id', 'is_valid', 'update_time', 'id'])
        .execute();
    },
    async down(db: AnyDb) {
      await db.schema.dropIndex('conversations_owner_list_idx').execute();
      await db.schema.alterTable('conversations').dropColumn('pinned_at').execute();
    },
  };
}
