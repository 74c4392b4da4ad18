import type { DialectName } from '../client';
import { realType, withId } from './helpers';
import type { AnyDb } from './helpers';

/** Request statistics (one row per /api request, purged by the retention task), background tasks and their runs. */
export function admin(dialect: DialectName) {
  return {
    async up(db: AnyDb) {
      await withId(db.schema.createTable('request_logs'), dialect)
        .addColumn('time', 'varchar(32)', (c) => c.notNull())
        .addColumn('route_path', 'varchar(255)', (c) => c.notNull())
        .addColumn('method', 'varchar(16)', (c) => c.notNull())
        .addColumn('user_id', 'integer')
        .addColumn('elapsed_ms', realType(dialect), (c) => c.notNull())
        .addColumn('status', 'integer', (c) => c.notNull())
        .execute();
      await db.schema.createIndex('request_logs_time_idx').on('request_logs').column('time').execute();

      await db.schema
        .createTable('tasks')
        .addColumn('name', 'varchar(64)', (c) => c.primaryKey())
        .addColumn('enabled', 'integer', (c) => c.notNull().defaultTo(1))
        .addColumn('interval_seconds', 'integer', (c) => c.notNull())
        .addColumn('last_run_time', 'varchar(32)')
        .addColumn('next_run_time', 'varchar(32)')
        .addColumn('last_status', 'varchar(16)', (c) => c.notNull().defaultTo('idle'))
        .addColumn('last_output', 'text')
        .addColumn('run_started_at', 'varchar(32)')
        .addColumn('update_time', 'varchar(32)', (c) => c.notNull())
        .execute();

      await withId(db.schema.createTable('task_runs'), dialect)
        .addColumn('task_name', 'varchar(64)', (c) => c.notNull())
        .addColumn('trigger', 'varchar(16)', (c) => c.notNull())
        .addColumn('start_time', 'varchar(32)', (c) => c.notNull())
        .addColumn('end_time', 'varchar(32)', (c) => c.notNull())
        .addColumn('status', 'varchar(16)', (c) => c.notNull())
        .addColumn('output', 'text', (c) => c.notNull())
        .execute();
      await db.schema
        .createIndex('task_runs_task_idx')
        .on('task_runs')
        .columns(['task_name', 'start_time'])
        .execute();
      await db.schema.createIndex('task_runs_start_idx').on('task_runs').column('start_time').execute();
    },
    async down(db: AnyDb) {
      for (const t of ['task_runs', 'tasks', 'request_logs']) await db.schema.dropTable(t).execute();
    },
  };
}
