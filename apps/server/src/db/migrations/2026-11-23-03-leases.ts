import type { DialectName } from '../client';
import { realType } from './helpers';
import type { AnyDb } from './helpers';

/**
 * `running_asks`: one row per ask in flight that was charged, with what settling it needs (the charge, whether
 * an answer arrived) and its instance's heartbeat. An instance that dies leaves its rows behind; another one (or
 * the restarted one) settles them as interrupted: ask log row, refund when nothing was answered.
 */
export function leases(dialect: DialectName) {
  return {
    async up(db: AnyDb) {
      await db.schema
        .createTable('running_asks')
        .addColumn('ask_id', 'varchar(64)', (c) => c.primaryKey())
        .addColumn('instance_id', 'varchar(64)', (c) => c.notNull())
        .addColumn('user_id', 'integer', (c) => c.notNull())
        .addColumn('source', 'varchar(16)', (c) => c.notNull())
        .addColumn('model', 'varchar(64)', (c) => c.notNull())
        .addColumn('conversation_id', 'varchar(64)')
        .addColumn('server_id', 'integer')
        .addColumn('charged_credits', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('rate_event_id', 'integer')
        .addColumn('cap_event_id', 'integer')
        .addColumn('answered', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('started_at', 'varchar(32)', (c) => c.notNull())
        .addColumn('queueing_time', realType(dialect), (c) => c.notNull().defaultTo(0))
        .addColumn('ask_started_at', 'varchar(32)')
        .addColumn('heartbeat_at', 'varchar(32)', (c) => c.notNull())
        .execute();
      await db.schema
        .createIndex('running_asks_heartbeat_idx')
        .on('running_asks')
        .column('heartbeat_at')
        .execute();
      await db.schema
        .createIndex('running_asks_instance_idx')
        .on('running_asks')
        .column('instance_id')
        .execute();
    },
    async down(db: AnyDb) {
      await db.schema.dropTable('running_asks').execute();
    },
  };
}
