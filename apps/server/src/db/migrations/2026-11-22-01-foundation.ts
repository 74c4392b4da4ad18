import type { DialectName } from '../client';
import { realType, withId } from './helpers';
import type { AnyDb } from './helpers';

/** Users, their settings and quota counters, sessions and runtime settings. */
export function foundation(dialect: DialectName) {
  return {
    async up(db: AnyDb) {
      await withId(db.schema.createTable('users'), dialect)
        .addColumn('username', 'varchar(32)', (c) => c.notNull().unique())
        .addColumn('nickname', 'varchar(64)', (c) => c.notNull())
        .addColumn('email', 'varchar(254)', (c) => c.notNull())
        .addColumn('hashed_password', 'text', (c) => c.notNull())
        .addColumn('avatar', 'text')
        .addColumn('remark', 'varchar(256)')
        .addColumn('is_active', 'integer', (c) => c.notNull().defaultTo(1))
        .addColumn('is_superuser', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('is_verified', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('last_active_time', 'varchar(32)')
        .addColumn('create_time', 'varchar(32)', (c) => c.notNull())
        .addColumn('update_time', 'varchar(32)', (c) => c.notNull())
        .execute();
      await db.schema.createIndex('users_last_active_idx').on('users').column('last_active_time').execute();

      await withId(db.schema.createTable('user_settings'), dialect)
        .addColumn('user_id', 'integer', (c) =>
          c.notNull().unique().references('users.id').onDelete('cascade'),
        )
        .addColumn('credits', realType(dialect), (c) => c.notNull().defaultTo(0))
        .addColumn('openai_web', 'text', (c) => c.notNull())
        .addColumn('openai_api', 'text', (c) => c.notNull())
        .addColumn('update_time', 'varchar(32)', (c) => c.notNull())
        .execute();

      await db.schema
        .createTable('quota_counters')
        .addColumn('user_id', 'integer', (c) => c.notNull().references('users.id').onDelete('cascade'))
        .addColumn('source', 'varchar(16)', (c) => c.notNull())
        .addColumn('model', 'varchar(64)', (c) => c.notNull())
        .addColumn('remaining', 'integer', (c) => c.notNull())
        .addPrimaryKeyConstraint('quota_counters_pk', ['user_id', 'source', 'model'])
        .execute();

      await db.schema
        .createTable('sessions')
        .addColumn('id', 'varchar(64)', (c) => c.primaryKey())
        .addColumn('user_id', 'integer', (c) => c.notNull().references('users.id').onDelete('cascade'))
        .addColumn('created_at', 'varchar(32)', (c) => c.notNull())
        .addColumn('expires_at', 'varchar(32)', (c) => c.notNull())
        .addColumn('last_seen_at', 'varchar(32)', (c) => c.notNull())
        .addColumn('user_agent', 'varchar(512)')
        .addColumn('ip', 'varchar(64)')
        .execute();
      await db.schema.createIndex('sessions_user_idx').on('sessions').column('user_id').execute();
      await db.schema.createIndex('sessions_expires_idx').on('sessions').column('expires_at').execute();

      await db.schema
        .createTable('settings')
        .addColumn('key', 'varchar(128)', (c) => c.primaryKey())
        .addColumn('value', 'text', (c) => c.notNull())
        .addColumn('update_time', 'varchar(32)', (c) => c.notNull())
        .execute();
    },
    async down(db: AnyDb) {
      for (const t of ['settings', 'sessions', 'quota_counters', 'user_settings', 'users']) {
        await db.schema.dropTable(t).execute();
      }
    },
  };
}
