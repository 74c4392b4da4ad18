import type { DialectName } from '../client';
import { realType, withId } from './helpers';
import type { AnyDb } from './helpers';

/** Conversations, messages (a tree by parent link), ask logs, rate-limit events, upstream servers. */
export function chat(dialect: DialectName) {
  return {
    async up(db: AnyDb) {
      await withId(db.schema.createTable('servers'), dialect)
        .addColumn('source', 'varchar(16)', (c) => c.notNull())
        .addColumn('hostname', 'varchar(255)', (c) => c.notNull())
        .addColumn('ip_address', 'varchar(64)', (c) => c.notNull())
        .addColumn('port', 'integer', (c) => c.notNull())
        .addColumn('base_path', 'varchar(255)', (c) => c.notNull().defaultTo(''))
        .addColumn('use_tls', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('status', 'varchar(16)', (c) => c.notNull().defaultTo('online'))
        .addColumn('weight', 'integer', (c) => c.notNull().defaultTo(1))
        .addColumn('max_concurrency', 'integer', (c) => c.notNull().defaultTo(1))
        .addColumn('last_check_time', 'varchar(32)')
        .addColumn('last_error', 'text')
        .addColumn('create_time', 'varchar(32)', (c) => c.notNull())
        .execute();

      await withId(db.schema.createTable('conversations'), dialect)
        .addColumn('conversation_id', 'varchar(64)', (c) => c.notNull().unique())
        .addColumn('source', 'varchar(16)', (c) => c.notNull())
        .addColumn('title', 'varchar(256)')
        .addColumn('user_id', 'integer', (c) => c.references('users.id').onDelete('set null'))
        .addColumn('is_valid', 'integer', (c) => c.notNull().defaultTo(1))
        .addColumn('is_public', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('current_model', 'varchar(64)')
        .addColumn('current_node', 'varchar(64)')
        .addColumn('server_id', 'integer')
        .addColumn('plugin_ids', 'text')
        .addColumn('create_time', 'varchar(32)', (c) => c.notNull())
        .addColumn('update_time', 'varchar(32)', (c) => c.notNull())
        .execute();
      await db.schema
        .createIndex('conversations_user_idx')
        .on('conversations')
        .columns(['user_id', 'source', 'is_valid'])
        .execute();
      await db.schema
        .createIndex('conversations_update_idx')
        .on('conversations')
        .column('update_time')
        .execute();

      await db.schema
        .createTable('messages')
        .addColumn('id', 'varchar(64)', (c) => c.primaryKey())
        .addColumn('conversation_id', 'varchar(64)', (c) =>
          c.notNull().references('conversations.conversation_id').onDelete('cascade'),
        )
        .addColumn('parent', 'varchar(64)')
        .addColumn('role', 'varchar(16)', (c) => c.notNull())
        .addColumn('author_name', 'varchar(64)')
        .addColumn('model', 'varchar(64)')
        .addColumn('content', 'text')
        .addColumn('metadata', 'text')
        .addColumn('text', 'text', (c) => c.notNull().defaultTo(''))
        .addColumn('create_time', 'varchar(32)', (c) => c.notNull())
        .addColumn('seq', 'integer', (c) => c.notNull().defaultTo(0))
        .execute();
      await db.schema
        .createIndex('messages_conversation_idx')
        .on('messages')
        .columns(['conversation_id', 'create_time'])
        .execute();

      await withId(db.schema.createTable('ask_logs'), dialect)
        .addColumn('time', 'varchar(32)', (c) => c.notNull())
        .addColumn('source', 'varchar(16)', (c) => c.notNull())
        .addColumn('model', 'varchar(64)', (c) => c.notNull())
        .addColumn('user_id', 'integer')
        .addColumn('conversation_id', 'varchar(64)')
        .addColumn('server_id', 'integer')
        .addColumn('queueing_time', realType(dialect), (c) => c.notNull().defaultTo(0))
        .addColumn('ask_time', realType(dialect), (c) => c.notNull().defaultTo(0))
        .addColumn('outcome', 'varchar(16)', (c) => c.notNull())
        .addColumn('charged', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('error', 'text')
        .execute();
      await db.schema
        .createIndex('ask_logs_time_idx')
        .on('ask_logs')
        .columns(['time', 'source', 'model'])
        .execute();

      await withId(db.schema.createTable('rate_events'), dialect)
        .addColumn('user_id', 'integer', (c) => c.notNull().references('users.id').onDelete('cascade'))
        .addColumn('source', 'varchar(16)', (c) => c.notNull())
        .addColumn('time', 'varchar(32)', (c) => c.notNull())
        .execute();
      await db.schema
        .createIndex('rate_events_user_idx')
        .on('rate_events')
        .columns(['user_id', 'source', 'time'])
        .execute();
    },
    async down(db: AnyDb) {
      for (const t of ['rate_events', 'ask_logs', 'messages', 'conversations', 'servers'])
        await db.schema.dropTable(t).execute();
    },
  };
}
