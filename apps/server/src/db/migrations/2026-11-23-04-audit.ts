import type { DialectName } from '../client';
import { withId } from './helpers';
import type { AnyDb } from './helpers';

/**
 * `audit_logs`: the append-only record of administrative changes and logins (purged only by the retention task).
 * `shared_cap_events`: one row per ask admitted under a cap shared by every user (the web account's GPT-4
 * messages per 3 hours), taken when the ask is reserved and removed when it is refunded.
 */
export function audit(dialect: DialectName) {
  return {
    async up(db: AnyDb) {
      await withId(db.schema.createTable('audit_logs'), dialect)
        .addColumn('time', 'varchar(32)', (c) => c.notNull())
        .addColumn('actor_id', 'integer')
        .addColumn('actor_name', 'varchar(255)', (c) => c.notNull())
        .addColumn('address', 'varchar(64)')
        .addColumn('action', 'varchar(64)', (c) => c.notNull())
        .addColumn('target_type', 'varchar(32)', (c) => c.notNull())
        .addColumn('target_id', 'varchar(128)')
        .addColumn('target_label', 'varchar(255)')
        .addColumn('changes', 'text', (c) => c.notNull())
        .addColumn('outcome', 'varchar(16)', (c) => c.notNull())
        .execute();
      await db.schema.createIndex('audit_logs_time_idx').on('audit_logs').column('time').execute();
      await db.schema
        .createIndex('audit_logs_action_idx')
        .on('audit_logs')
        .columns(['action', 'time'])
        .execute();

      await withId(db.schema.createTable('shared_cap_events'), dialect)
        .addColumn('cap', 'varchar(128)', (c) => c.notNull())
        .addColumn('time', 'varchar(32)', (c) => c.notNull())
        .execute();
      await db.schema
        .createIndex('shared_cap_events_cap_idx')
        .on('shared_cap_events')
        .columns(['cap', 'time'])
        .execute();
    },
    async down(db: AnyDb) {
      for (const t of ['shared_cap_events', 'audit_logs']) await db.schema.dropTable(t).execute();
    },
  };
}
