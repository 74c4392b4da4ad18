import type { AnyDb } from './helpers';

/**
 * A task run's outcome as a message key with parameters (JSON), beside the plain-text output: the admin page
 * shows it in the reader's language. Runs recorded before have none and show their text.
 */
export function taskSummaries() {
  return {
    async up(db: AnyDb) {
      await db.schema.alterTable('tasks').addColumn('last_summary', 'text').execute();
      await db.schema.alterTable('task_runs').addColumn('summary', 'text').execute();
    },
    async down(db: AnyDb) {
      await db.schema.alterTable('task_runs').dropColumn('summary').execute();
      await db.schema.alterTable('tasks').dropColumn('last_summary').execute();
    },
  };
}
