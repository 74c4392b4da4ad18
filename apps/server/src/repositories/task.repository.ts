import type { Insertable, Updateable } from 'kysely';
import type { TaskRow, TaskRunRow, TaskRunsTable, TasksTable } from '../db/schema';
import type { Executor } from './executor';
import { nowIso } from './executor';

/** The `tasks` and `task_runs` tables. Claims are conditional updates, so several instances never run a task twice. */
export function taskRepository(db: Executor) {
  return {
    listAll(): Promise<TaskRow[]> {
      return db.selectFrom('tasks').selectAll().orderBy('name').execute();
    },
    findByName(name: string): Promise<TaskRow | undefined> {
      return db.selectFrom('tasks').selectAll().where('name', '=', name).executeTakeFirst();
    },
    /** Adds the task unless it exists (an existing schedule is kept). */
    async insertIfMissing(row: Insertable<TasksTable>): Promise<void> {
      await db
        .insertInto('tasks')
        .values(row)
        .onConflict((oc) => oc.column('name').doNothing())
        .execute();
    },
    update(name: string, patch: Updateable<TasksTable>): Promise<TaskRow | undefined> {
      return db
        .updateTable('tasks')
        .set({ ...patch, update_time: nowIso() })
        .where('name', '=', name)
        .returningAll()
        .executeTakeFirst();
    },
    /** Enabled tasks due at `now`. */
    listDue(now: string): Promise<TaskRow[]> {
      return db
        .selectFrom('tasks')
        .selectAll()
        .where('enabled', '=', 1)
        .where('next_run_time', '<=', now)
        .execute();
    },
    /**
     * Marks the task running unless a run is in progress (one that started before `staleBefore` is taken over).
     * `dueAt` (scheduled runs) also requires the task to be enabled and due, so only one instance wins a slot.
     */
    async claim(
      name: string,
      claim: { now: string; staleBefore: string; nextRunTime: string | null; dueAt?: string },
    ): Promise<boolean> {
      let q = db
        .updateTable('tasks')
        .set({
          last_status: 'running',
          run_started_at: claim.now,
          next_run_time: claim.nextRunTime,
          update_time: claim.now,
        })
        .where('name', '=', name)
        .where((eb) =>
          eb.or([
            eb('last_status', '!=', 'running'),
            eb('run_started_at', 'is', null),
            eb('run_started_at', '<', claim.staleBefore),
          ]),
        );
      if (claim.dueAt) q = q.where('enabled', '=', 1).where('next_run_time', '<=', claim.dueAt);
      const r = await q.executeTakeFirst();
      return Number(r.numUpdatedRows) === 1;
    },
    async insertRun(row: Insertable<TaskRunsTable>): Promise<TaskRunRow> {
      return db.insertInto('task_runs').values(row).returningAll().executeTakeFirstOrThrow();
    },
    listRuns(name: string, limit: number): Promise<TaskRunRow[]> {
      return db
        .selectFrom('task_runs')
        .selectAll()
        .where('task_name', '=', name)
        .orderBy('start_time', 'desc')
        .orderBy('id', 'desc')
        .limit(limit)
        .execute();
    },
    async purgeRunsBefore(time: string): Promise<number> {
      const r = await db.deleteFrom('task_runs').where('start_time', '<', time).executeTakeFirst();
      return Number(r.numDeletedRows);
    },
  };
}
