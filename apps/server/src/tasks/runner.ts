import { ERRORS, ERROR_DETAILS } from '@cc/contracts';
import type { Config, TaskRead, TaskRun, TaskSummary, TaskUpdate } from '@cc/contracts';
import type { FastifyBaseLogger } from 'fastify';
import type { RuntimeSettings } from '../config/runtime-settings';
import { fail, isAppError } from '../errors/app-error';
import { presentTask, presentTaskRun } from '../presenters/system.presenter';
import type { Executor } from '../repositories/executor';
import { int, nowIso } from '../repositories/executor';
import { taskRepository } from '../repositories/task.repository';

/**
 * A background job. Its schedule lives in the `tasks` table (shared by every instance). `C` is what its work
 * needs (the app context for the built-in tasks), handed over by whoever starts or runs it.
 */
export interface TaskDefinition<C = unknown> {
  name: string;
  description: string;
  /** Schedule of the row created the first time the task is seen. */
  defaults(config: Config): { enabled: boolean; intervalSeconds: number };
  /** Does the work; what it returns is the run's output. A throw marks the run failed. */
  run(ctx: C): Promise<TaskResult>;
}

/**
 * A run's output: plain text (for logs), or text with a summary the admin page shows in the reader's language
 * (a key under the page's task outputs, with its parameters).
 */
export type TaskResult = string | { text: string; summary: TaskSummary };

/** A run output's plain text. */
export const resultText = (result: TaskResult): string => (typeof result === 'string' ? result : result.text);

/** What the runner itself needs, available before the app context exists. */
export interface TaskRunnerDeps {
  /** Where the schedules and runs are kept. */
  db: Executor;
  /** The live config: the schedule of a task seen for the first time follows it. */
  runtime: Pick<RuntimeSettings, 'current'>;
  log: FastifyBaseLogger;
}

export type TaskTrigger = 'schedule' | 'manual' | 'startup';

export interface TaskRunnerOptions {
  /** How often due tasks are looked for, ms (default 5 s; tests use less). */
  tickMs?: number;
  /** A run marked running for longer than this is presumed dead (its instance crashed) and may be taken over. */
  staleAfterMs?: number;
  /** How long `stop()` waits for runs in progress, ms. */
  stopWaitMs?: number;
  /** Clock of the schedule (due and next run times), epoch ms; default Date.now (tests move a fake one). */
  now?: () => number;
}

const OUTPUT_MAX = 10_000;

function later(seconds: number, from: number): string {
  return new Date(from + seconds * 1000).toISOString();
}

/**
 * Runs the tasks on their schedule. Every run is claimed with a conditional update of its row, so a task runs
 * once at a time across all instances; each run is recorded in `task_runs`. Timers are unref'd. The runner is
 * built from its own dependencies; the context the tasks work with is passed to `start`, `runNow` and `tick`.
 */
export function createTaskRunner<C>(
  deps: TaskRunnerDeps,
  definitions: readonly TaskDefinition<C>[],
  options: TaskRunnerOptions = {},
) {
  const tickMs = options.tickMs ?? 5000;
  const staleAfterMs = options.staleAfterMs ?? 3_600_000;
  const clock = options.now ?? (() => Date.now());
  const byName = new Map(definitions.map((d) => [d.name, d]));
  const inFlight = new Map<string, Promise<TaskRun>>();
  const repo = () => taskRepository(deps.db);
  let timer: NodeJS.Timeout | null = null;
  /** The scheduler pass in progress. */
  let ticking: Promise<void> | null = null;
  let seeded: Promise<void> | null = null;

  function definition(name: string): TaskDefinition<C> {
    const def = byName.get(name);
    if (!def) throw fail.notFound(ERROR_DETAILS.taskNotFound);
    return def;
  }

  /** Creates the rows of tasks seen for the first time (existing schedules are kept). */
  function ensureRows(): Promise<void> {
    seeded ??= (async () => {
      const config = deps.runtime.current();
      for (const def of definitions) {
        const d = def.defaults(config);
        await repo().insertIfMissing({
          name: def.name,
          enabled: int(d.enabled),
          interval_seconds: d.intervalSeconds,
          last_run_time: null,
          next_run_time: later(d.intervalSeconds, clock()),
          last_status: 'idle',
          last_output: null,
          last_summary: null,
          run_started_at: null,
          update_time: nowIso(),
        });
      }
    })().catch((e: unknown) => {
      seeded = null;
      throw e;
    });
    return seeded;
  }

  async function execute(
    def: TaskDefinition<C>,
    trigger: TaskTrigger,
    work: () => Promise<TaskResult>,
  ): Promise<TaskRun> {
    const start = nowIso();
    let status: 'success' | 'failed' = 'success';
    let output: string;
    let summary: string | null = null;
    try {
      const result = await work();
      output = resultText(result);
      if (typeof result !== 'string') summary = JSON.stringify(result.summary);
    } catch (e) {
      status = 'failed';
      output = e instanceof Error ? e.message : String(e);
      deps.log.warn({ err: e, task: def.name }, 'task failed');
    }
    output = output.slice(0, OUTPUT_MAX);
    await repo().update(def.name, {
      last_status: status,
      last_output: output,
      last_summary: summary,
      last_run_time: start,
      run_started_at: null,
    });
    const run = await repo().insertRun({
      task_name: def.name,
      trigger,
      start_time: start,
      end_time: nowIso(),
      status,
      output,
      summary,
    });
    deps.log.info({ task: def.name, trigger, status }, 'task run');
    return presentTaskRun(run);
  }

  function track(name: string, run: Promise<TaskRun>): Promise<TaskRun> {
    inFlight.set(name, run);
    void run.finally(() => inFlight.delete(name)).catch(() => undefined);
    return run;
  }

  /** Marks a task running for a run on demand (the schedule is kept), or refuses with 409. */
  async function claimNow(name: string): Promise<void> {
    await ensureRows();
    if (inFlight.has(name)) throw fail.taskAlreadyRunning();
    const row = await repo().findByName(name);
    const now = clock();
    const claimed = await repo().claim(name, {
      now: new Date(now).toISOString(),
      staleBefore: new Date(now - staleAfterMs).toISOString(),
      nextRunTime: row?.next_run_time ?? later(row?.interval_seconds ?? 3600, now),
    });
    if (!claimed) throw fail.taskAlreadyRunning();
  }

  /**
   * Looks for due tasks and starts the ones this instance wins, running them with `ctx` (a pass in progress is not
   * doubled).
   */
  function tick(ctx: C): Promise<void> {
    ticking ??= pass(ctx).finally(() => {
      ticking = null;
    });
    return ticking;
  }

  async function pass(ctx: C): Promise<void> {
    try {
      await ensureRows();
      const now = clock();
      for (const row of await repo().listDue(new Date(now).toISOString())) {
        const def = byName.get(row.name);
        if (!def || inFlight.has(row.name)) continue;
        const claimed = await repo().claim(row.name, {
          now: new Date(now).toISOString(),
          staleBefore: new Date(now - staleAfterMs).toISOString(),
          nextRunTime: later(row.interval_seconds, now),
          dueAt: new Date(now).toISOString(),
        });
        if (claimed)
          void track(
            row.name,
            execute(def, 'schedule', () => def.run(ctx)),
          ).catch(() => undefined);
      }
    } catch (err) {
      deps.log.warn({ err }, 'task scheduler tick failed');
    }
  }

  return {
    definitions,
    /** Starts the schedule (and the startup runs); every run it starts works with `ctx`. */
    start(ctx: C, startup: readonly string[] = []): void {
      if (timer) return;
      timer = setInterval(() => void tick(ctx), tickMs);
      timer.unref();
      void tick(ctx);
      for (const name of startup) {
        void this.runNow(ctx, name, 'startup').catch((err: unknown) => {
          // Another instance starting at the same time runs it: as it should be, not a failure.
          if (isAppError(err) && err.messageKey === ERRORS.taskAlreadyRunning.message)
            deps.log.info({ task: name }, 'startup task run by another instance');
          else deps.log.warn({ err, task: name }, 'startup task not run');
        });
      }
    },
    /** Stops the schedule and waits (a bounded time) for runs in progress, including any the last pass starts. */
    async stop(): Promise<void> {
      if (timer) clearInterval(timer);
      timer = null;
      await ticking;
      const waiting = [...inFlight.values()].map((p) => p.catch(() => undefined));
      if (waiting.length === 0) return;
      let cap: NodeJS.Timeout | undefined;
      await Promise.race([
        Promise.all(waiting),
        new Promise((resolve) => {
          cap = setTimeout(resolve, options.stopWaitMs ?? 5000);
          cap.unref();
        }),
      ]);
      clearTimeout(cap);
    },
    async list(): Promise<TaskRead[]> {
      await ensureRows();
      const rows = await repo().listAll();
      return rows
        .filter((r) => byName.has(r.name))
        .map((r) => presentTask(r, definition(r.name).description));
    },
    /** The latest runs of a task, newest first (404 for a task this runner does not know). */
    async runs(name: string, limit: number): Promise<TaskRun[]> {
      definition(name);
      return (await repo().listRuns(name, limit)).map(presentTaskRun);
    },
    /** Runs a task now with `ctx` and returns the run; refused while a run of it is in progress (here or elsewhere). */
    async runNow(ctx: C, name: string, trigger: TaskTrigger = 'manual'): Promise<TaskRun> {
      const def = definition(name);
      await claimNow(name);
      return track(
        name,
        execute(def, trigger, () => def.run(ctx)),
      );
    },
    /**
     * Does a task's work now through a caller's own function (an action that wants the typed result rather than
     * the output text): same claim, same record as a manual run. Errors are rethrown after being recorded.
     */
    async runWith<T>(name: string, work: () => Promise<T>, describe: (value: T) => TaskResult): Promise<T> {
      const def = definition(name);
      await claimNow(name);
      // Filled in by the work (a holder object: TS does not follow assignments made inside the closure).
      const outcome: { ok: boolean; value?: T; error?: unknown } = { ok: false };
      await track(
        name,
        execute(def, 'manual', async () => {
          try {
            outcome.value = await work();
            outcome.ok = true;
            return describe(outcome.value);
          } catch (error) {
            outcome.error = error;
            throw error;
          }
        }),
      );
      if (!outcome.ok) throw outcome.error;
      return outcome.value as T;
    },
    /** Enables, disables or reschedules a task; the next run is one interval from now. */
    async update(name: string, patch: TaskUpdate): Promise<TaskRead> {
      const def = definition(name);
      await ensureRows();
      const row = await repo().findByName(name);
      const interval = patch.interval_seconds ?? row?.interval_seconds ?? 3600;
      const updated = await repo().update(name, {
        ...(patch.enabled === undefined ? {} : { enabled: int(patch.enabled) }),
        interval_seconds: interval,
        next_run_time: later(interval, clock()),
      });
      if (!updated) throw fail.notFound(ERROR_DETAILS.taskNotFound);
      return presentTask(updated, def.description);
    },
    /** One scheduler pass now (tests). */
    tick,
  };
}
export type TaskRunner<C> = ReturnType<typeof createTaskRunner<C>>;
