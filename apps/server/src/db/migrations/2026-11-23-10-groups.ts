import type { DialectName } from '../client';
import { withId } from './helpers';
import type { AnyDb } from './helpers';

/**
 * `user_groups`: named settings templates (JSON of each source's settings, the shapes of a user's); a user belongs
 * to at most one (`users.group_id`, cleared when the group is deleted). `user_settings.own_settings`: a member's
 * own source settings from before joining, restored when they leave. Existing users join no group, so their
 * settings and behaviour stay as they were.
 */
export function groups(dialect: DialectName) {
  return {
    async up(db: AnyDb) {
      await withId(db.schema.createTable('user_groups'), dialect)
        .addColumn('name', 'varchar(64)', (c) => c.notNull().unique())
        .addColumn('openai_web', 'text', (c) => c.notNull())
        .addColumn('openai_api', 'text', (c) => c.notNull())
        .addColumn('create_time', 'varchar(32)', (c) => c.notNull())
        .addColumn('update_time', 'varchar(32)', (c) => c.notNull())
        .execute();
      await db.schema
        .alterTable('users')
        .addColumn('group_id', 'integer', (c) => c.references('user_groups.id').onDelete('set null'))
        .execute();
      await db.schema.createIndex('users_group_idx').on('users').column('group_id').execute();
      await db.schema.alterTable('user_settings').addColumn('own_settings', 'text').execute();
    },
    async down(db: AnyDb) {
      await db.schema.alterTable('user_settings').dropColumn('own_settings').execute();
      await db.schema.dropIndex('users_group_idx').execute();
      await db.schema.alterTable('users').dropColumn('group_id').execute();
      await db.schema.dropTable('user_groups').execute();
    },
  };
}
