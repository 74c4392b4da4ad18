import { ERROR_DETAILS } from '@cc/contracts';
import type { TaskRead, TaskRun, TaskUpdate } from '@cc/contracts';
import type { AppContext } from '../app-context';
import type { TaskResult } from '../tasks/runner';
import { fail } from '../errors/app-error';
import { diffChanges, recordAudit } from './audit.service';
import type { AuditActor } from './audit.service';

/** Runs a task now on an admin's request; the run and its outcome are recorded in the audit log. */
export async function runTaskNow(ctx: AppContext, name: string, actor: AuditActor): Promise<TaskRun> {
  const run = await ctx.tasks.runNow(ctx, name);
  await recordAudit(ctx, actor, {
    action: 'task.run',
    targetType: 'task',
    targetId: name,
    targetLabel: name,
    outcome: run.status === 'success' ? 'success' : 'failure',
  });
  return run;
}

/**
 * Does a task's work now through the caller's own function (see `TaskRunner.runWith`), recorded in the audit log
 * like a manual run; a failure is recorded, then rethrown.
 */
export async function runTaskWith<T>(
  ctx: AppContext,
  name: string,
  work: () => Promise<T>,
  describe: (value: T) => TaskResult,
  actor: AuditActor,
): Promise<T> {
  const record = (outcome: 'success' | 'failure') =>
    recordAudit(ctx, actor, {
      action: 'task.run',
      targetType: 'task',
      targetId: name,
      targetLabel: name,
      outcome,
    });
  let value: T;
  try {
    value = await ctx.tasks.runWith(name, work, describe);
  } catch (e) {
    await record('failure');
    throw e;
  }
  await record('success');
  return value;
}

/** Changes a task's schedule (enabled, interval); the change is recorded in the audit log. */
export async function updateTask(
  ctx: AppContext,
  name: string,
  patch: TaskUpdate,
  actor: AuditActor,
): Promise<TaskRead> {
  const before = (await ctx.tasks.list()).find((t) => t.name === name);
  if (!before) throw fail.notFound(ERROR_DETAILS.taskNotFound);
  const after = await ctx.tasks.update(name, patch);
  const schedule = (t: TaskRead) => ({ enabled: t.enabled, interval_seconds: t.interval_seconds });
  await recordAudit(ctx, actor, {
    action: 'task.update',
    targetType: 'task',
    targetId: name,
    targetLabel: name,
    changes: diffChanges(schedule(before), schedule(after)),
  });
  return after;
}
