import type { AnyDb } from './helpers';

/**
 * `running_asks.answered` goes: it said whether an ask in flight had stored an answer, so that the sweep could keep
 * the charge of an answered ask whose instance died. Every answer cut off by a failure is refunded now, so nothing
 * reads it; the record's `conversation_id` still says where the cut-off answer was stored.
 */
export function runningAsksAnswered() {
  return {
    async up(db: AnyDb) {
      await db.schema.alterTable('running_asks').dropColumn('answered').execute();
    },
    async down(db: AnyDb) {
      await db.schema
        .alterTable('running_asks')
        .addColumn('answered', 'integer', (c) => c.notNull().defaultTo(0))
        .execute();
    },
  };
}
