import type { AnyDb } from './helpers';

/**
 * Usage per user: tokens in and out on each ask log row (null on rows written before), whether they were estimated
 * with a tokenizer, and an index for one user's asks over time.
 */
export function usage() {
  return {
    async up(db: AnyDb) {
      await db.schema.alterTable('ask_logs').addColumn('input_tokens', 'integer').execute();
      await db.schema.alterTable('ask_logs').addColumn('output_tokens', 'integer').execute();
      await db.schema.alterTable('ask_logs').addColumn('tokens_estimated', 'integer').execute();
      await db.schema
        .createIndex('ask_logs_user_time_idx')
        .on('ask_logs')
        .columns(['user_id', 'time'])
        .execute();
    },
    async down(db: AnyDb) {
      await db.schema.dropIndex('ask_logs_user_time_idx').execute();
      await db.schema.alterTable('ask_logs').dropColumn('tokens_estimated').execute();
      await db.schema.alterTable('ask_logs').dropColumn('output_tokens').execute();
      await db.schema.alterTable('ask_logs').dropColumn('input_tokens').execute();
    },
  };
}
