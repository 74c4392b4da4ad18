import type { Insertable, Updateable } from 'kysely';
import type { RunningAskRow, RunningAsksTable } from '../db/schema';
import { prepared, preparedRow } from '../db/prepared';
import type { NoParams } from '../db/prepared';
import type { Executor } from './executor';

// Every charged ask runs these (db/prepared.ts).
const insertRow = preparedRow((db, _: NoParams, row: Insertable<RunningAsksTable>) =>
  db.insertInto('running_asks').values(row),
);
const updateRow = preparedRow((db, v: { askId: string }, patch: Updateable<RunningAsksTable>) =>
  db.updateTable('running_asks').set(patch).where('ask_id', '=', v.askId),
);
const removeRow = prepared((db, v: { askId: string }) =>
  db.deleteFrom('running_asks').where('ask_id', '=', v.askId),
);

/** The `running_asks` table: the charged asks in flight, each with its instance's heartbeat. */
export function runningAskRepository(db: Executor) {
  return {
    async insert(row: Insertable<RunningAsksTable>): Promise<void> {
      await insertRow.run(db, {}, row);
    },
    async update(askId: string, patch: Updateable<RunningAsksTable>): Promise<void> {
      await updateRow.run(db, { askId }, patch);
    },
    /** The heartbeat of the asks an instance runs (those given: a record whose settlement failed is not). */
    async touch(instanceId: string, askIds: string[], at: string): Promise<void> {
      await db
        .updateTable('running_asks')
        .set({ heartbeat_at: at })
        .where('instance_id', '=', instanceId)
        .where('ask_id', 'in', askIds)
        .execute();
    },
    /** Removes the row; true when it was still there (nobody else settled the ask). */
    async remove(askId: string): Promise<boolean> {
      return (await removeRow.changed(db, { askId })) > 0;
    },
    /** The asks in flight whose answer goes to a conversation, on any instance. */
    async listByConversation(conversationId: string): Promise<Pick<RunningAskRow, 'ask_id' | 'user_id'>[]> {
      return db
        .selectFrom('running_asks')
        .select(['ask_id', 'user_id'])
        .where('conversation_id', '=', conversationId)
        .execute();
    },
    /** Asks whose instance has not renewed them since `before` (oldest first). */
    async listStale(before: string, limit: number): Promise<string[]> {
      const rows = await db
        .selectFrom('running_asks')
        .select('ask_id')
        .where('heartbeat_at', '<', before)
        .orderBy('heartbeat_at')
        .limit(limit)
        .execute();
      return rows.map((r) => r.ask_id);
    },
    /** Takes a stale ask for settling: deleted and returned once, to one caller, still stale. */
    async claimStale(askId: string, before: string): Promise<RunningAskRow | undefined> {
      return db
        .deleteFrom('running_asks')
        .where('ask_id', '=', askId)
        .where('heartbeat_at', '<', before)
        .returningAll()
        .executeTakeFirst();
    },
  };
}
