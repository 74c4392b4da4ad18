import type { DialectName } from '../client';
import { withId } from './helpers';
import type { AnyDb } from './helpers';

/**
 * `shares`: read-only links to a snapshot of a conversation. Only a SHA-256 digest of the link's token is kept;
 * `snapshot` is the shared view (JSON) taken when the link was made. Revoked links stay, with `revoked_at`.
 */
export function shares(dialect: DialectName) {
  return {
    async up(db: AnyDb) {
      await withId(db.schema.createTable('shares'), dialect)
        .addColumn('token_hash', 'varchar(64)', (c) => c.notNull().unique())
        .addColumn('conversation_id', 'varchar(64)', (c) => c.notNull())
        .addColumn('user_id', 'integer', (c) => c.notNull())
        .addColumn('title', 'varchar(256)')
        .addColumn('snapshot', 'text', (c) => c.notNull())
        .addColumn('created_at', 'varchar(32)', (c) => c.notNull())
        .addColumn('revoked_at', 'varchar(32)')
        .execute();
      await db.schema
        .createIndex('shares_user_idx')
        .on('shares')
        .columns(['user_id', 'created_at'])
        .execute();
      await db.schema.createIndex('shares_conversation_idx').on('shares').column('conversation_id').execute();
    },
    async down(db: AnyDb) {
      await db.schema.dropTable('shares').execute();
    },
  };
}
