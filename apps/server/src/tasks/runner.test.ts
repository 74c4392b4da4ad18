import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { askLogRepository } from '../repositories/ask-log.repository';
import { requestLogRepository } from '../repositories/request-log.repository';
import { taskRepository } from '../repositories/task.repository';
import { until } from '../test/chat-client';
import { ADMIN, createTestApp } from '../test/harness';
import type { TestApp } from '../test/harness';
import { RETENTION_TASK, SYNC_TASK } from './builtin';
import { createTaskRunner } from './runner';
import type { TaskDefinition } from './runner';

let t: TestApp;
let admin: string;
/** How far the app's task clock is ahead of real time: tests move the schedule's time forward with it. */
let skew = 0;

beforeAll(async () => {
  t = await createTestApp({}, undefined, {
    tasks: { tickMs: 50, startupSync: false, now: () => Date.now() + skew },
  });
  admin = await t.login(ADMIN.username, ADMIN.password);
});
afterAll(() => t.close());

const call = (method: 'GET' | 'POST' | 'PATCH', url: string, payload?: object) =>
  t.app.inject({ method, url, headers: { cookie: admin }, payload });
const runs = (name: string) => taskRepository(t.ctx.dbHandle.db).listRuns(name, 1000);

describe('tasks API', () => {
  it('lists the built-in tasks with their schedule', async () => {
    const r = await call('GET', '/api/system/queryTask');
    expect(r.statusCode).toBe(200);
    const tasks = r.json().result as {
      name: string;
      enabled: boolean;
      interval_seconds: number;
      status: string;
      next_run_time: string | null;
    }[];
    expect(tasks.map((x) => x.name).sort()).toEqual(
      [RETENTION_TASK, 'server_health_check', SYNC_TASK].sort(),
    );
    const byName = Object.fromEntries(tasks.map((x) => [x.name, x]));
    // The sync schedule follows the config (off by default, every 12 h).
    expect(byName[SYNC_TASK]).toMatchObject({ enabled: false, interval_seconds: 43200, status: 'idle' });
    expect(byName[RETENTION_TASK]).toMatchObject({ enabled: true, interval_seconds: 3600 });
    expect(byName[SYNC_TASK]?.next_run_time).toBeNull();
  });

  it('runs a task on a 1 s schedule, purging past the TTLs; disabling stops it', async () => {
    const db = t.ctx.dbHandle.db;
    const config = t.ctx.runtime.current();
    await t.ctx.runtime.save({
      ...config,
      stats: { ...config.stats, ask_stats_ttl: -1, request_stats_ttl: 60 },
    });
    const old = new Date(Date.now() - 3600_000).toISOString();
    await requestLogRepository(db).insertMany([
      { time: old, route_path: '/api/x', method: 'GET', user_id: null, elapsed_ms: 1, status: 200 },
      {
        time: new Date().toISOString(),
        route_path: '/api/keep',
        method: 'GET',
        user_id: null,
        elapsed_ms: 1,
        status: 200,
      },
    ]);
    await askLogRepository(db).insert({
      time: '2000-01-01T00:00:00.000Z',
      source: 'openai_api',
      model: 'gpt_3_5',
      user_id: null,
      conversation_id: null,
      server_id: null,
      queueing_time: 0,
      ask_time: 0,
      outcome: 'success',
      charged: 1,
      error: null,
    });

    const patched = await call('PATCH', `/api/system/task/${RETENTION_TASK}`, { interval_seconds: 1 });
    expect(patched.json().result).toMatchObject({ name: RETENTION_TASK, enabled: true, interval_seconds: 1 });
    // Each second that passes on the task clock, the app's own scheduler (50 ms ticks) runs the task once more.
    skew += 1000;
    await until(async () => (await runs(RETENTION_TASK)).length >= 1, 10_000);
    skew += 1000;
    await until(async () => (await runs(RETENTION_TASK)).length >= 2, 10_000);
    const [last] = await runs(RETENTION_TASK);
    expect(last).toMatchObject({ trigger: 'schedule', status: 'success' });
    const routes = (await db.selectFrom('request_logs').select('route_path').execute()).map(
      (r) => r.route_path,
    );
    expect(routes).not.toContain('/api/x');
    expect(routes).toContain('/api/keep');
    // ask_stats_ttl -1 keeps ask logs forever.
    expect((await askLogRepository(db).listRecent({ end: '2000-01-02T00:00:00Z', limit: 10 })).length).toBe(
      1,
    );

    const listed = (await call('GET', '/api/system/queryTask'))
      .json()
      .result.find((x: { name: string }) => x.name === RETENTION_TASK);
    expect(listed.status).toBe('success');
    expect(listed.output).toMatch(/deleted \d+ request_logs/);
    expect(listed.last_run_time).toBeTruthy();
    expect(Date.parse(listed.next_run_time)).toBeGreaterThan(Date.parse(listed.last_run_time));

    const disabled = await call('PATCH', `/api/system/task/${RETENTION_TASK}`, { enabled: false });
    expect(disabled.json().result).toMatchObject({ enabled: false, next_run_time: null });
    // Stopping the schedule waits for a run that had already started; then ten intervals pass and a
    // scheduler pass starts nothing.
    await t.ctx.tasks.stop();
    const count = (await runs(RETENTION_TASK)).length;
    skew += 10_000;
    await t.ctx.tasks.tick(t.ctx);
    await t.ctx.tasks.stop();
    expect((await runs(RETENTION_TASK)).length).toBe(count);
    t.ctx.tasks.start(t.ctx);
    await t.ctx.runtime.save(config);
  });

  it('runs a task now and returns the run; unknown tasks are 404; bad updates 422', async () => {
    const r = await call('POST', `/api/system/task/${SYNC_TASK}/run`);
    expect(r.statusCode).toBe(200);
    expect(r.json().result).toMatchObject({ name: SYNC_TASK, trigger: 'manual', status: 'success' });
    expect(r.json().result.output).toMatch(/^fetched \d+, updated \d+, invalidated \d+, inserted \d+$/);
    const health = await call('POST', '/api/system/task/server_health_check/run');
    expect(health.json().result.output).toBe('no servers configured');
    expect((await call('POST', '/api/system/task/nope/run')).statusCode).toBe(404);
    expect((await call('PATCH', '/api/system/task/nope', { enabled: true })).statusCode).toBe(404);
    expect((await call('PATCH', `/api/system/task/${SYNC_TASK}`, {})).statusCode).toBe(422);
    expect((await call('PATCH', `/api/system/task/${SYNC_TASK}`, { interval_seconds: 0 })).statusCode).toBe(
      422,
    );
  });

  it('lists the latest runs of a task, newest first, with a summary the page translates', async () => {
    const first = await call('POST', '/api/system/task/server_health_check/run');
    const second = await call('POST', '/api/system/task/server_health_check/run');
    expect(second.json().result.summary).toEqual({ key: 'healthNone', params: {} });
    const r = await call('GET', '/api/system/task/server_health_check/runs?limit=2');
    expect(r.statusCode).toBe(200);
    const listed = r.json().result as { id: number; trigger: string; start_time: string; end_time: string }[];
    expect(listed.map((x) => x.id)).toEqual([second.json().result.id, first.json().result.id]);
    expect(listed[0]).toMatchObject({
      name: 'server_health_check',
      trigger: 'manual',
      status: 'success',
      output: 'no servers configured',
      summary: { key: 'healthNone', params: {} },
    });
    expect(Date.parse(listed[0]!.end_time)).toBeGreaterThanOrEqual(Date.parse(listed[0]!.start_time));
    // The task list carries the last run's summary too.
    const task = (await call('GET', '/api/system/queryTask'))
      .json()
      .result.find((x: { name: string }) => x.name === 'server_health_check');
    expect(task.summary).toEqual({ key: 'healthNone', params: {} });

    const sync = await call('POST', `/api/system/task/${SYNC_TASK}/run`);
    expect(sync.json().result.summary).toMatchObject({
      key: 'syncDone',
      params: { fetched: expect.any(Number) },
    });
    const retention = await call('POST', `/api/system/task/${RETENTION_TASK}/run`);
    expect(retention.json().result.summary).toMatchObject({
      key: 'retentionDone',
      params: { total: expect.any(Number) },
    });

    expect((await call('GET', '/api/system/task/nope/runs')).statusCode).toBe(404);
    expect((await call('GET', '/api/system/task/server_health_check/runs?limit=0')).statusCode).toBe(422);
    expect((await call('GET', '/api/system/task/server_health_check/runs?limit=101')).statusCode).toBe(422);
  });

  it('a failed run has no summary: the page shows its error text', async () => {
    const failing: TaskDefinition = {
      name: 'failing_probe',
      description: 'fails',
      defaults: () => ({ enabled: false, intervalSeconds: 60 }),
      run: () => Promise.reject(new Error('upstream refused')),
    };
    const runner = createTaskRunner({ db: t.ctx.dbHandle.db, runtime: t.ctx.runtime, log: t.ctx.log }, [
      failing,
    ]);
    const run = await runner.runNow(null, 'failing_probe');
    expect(run).toMatchObject({ status: 'failed', output: 'upstream refused', summary: null });
    expect((await runner.list())[0]).toMatchObject({
      status: 'failed',
      output: 'upstream refused',
      summary: null,
    });
  });

  it('saving the sync schedule in the config reschedules the task', async () => {
    const read = (await call('GET', '/api/system/config')).json().result;
    const saved = await t.app.inject({
      method: 'PUT',
      url: '/api/system/config',
      headers: { cookie: admin },
      payload: {
        ...read,
        openai_web: {
          ...read.openai_web,
          sync_conversations_schedule: true,
          sync_conversations_schedule_interval_hours: 2,
        },
      },
    });
    expect(saved.statusCode).toBe(200);
    const task = (await call('GET', '/api/system/queryTask'))
      .json()
      .result.find((x: { name: string }) => x.name === SYNC_TASK);
    expect(task).toMatchObject({ enabled: true, interval_seconds: 7200 });
  });
});

describe('task runner', () => {
  /**
   * A task whose runs each wait until the test finishes them. A run that starts while another is in progress
   * is noted in `overlapped` and ends at once (so a broken lock fails the test rather than hanging it).
   */
  function gated(name: string) {
    const finishers: (() => void)[] = [];
    let active = false;
    let overlapped = false;
    const def: TaskDefinition = {
      name,
      description: 'gated',
      defaults: () => ({ enabled: false, intervalSeconds: 1 }),
      async run() {
        if (active) {
          overlapped = true;
          return 'overlap';
        }
        active = true;
        await new Promise<void>((resolve) => finishers.push(resolve));
        active = false;
        return 'done';
      },
    };
    return { def, finishers, overlapped: () => overlapped };
  }

  it('runs one run of a task at a time, across instances too', async () => {
    const task = gated('gated_probe');
    // Two "instances" on one database and one clock; their schedules advance by tick() only.
    let now = Date.now();
    const deps = { db: t.ctx.dbHandle.db, runtime: t.ctx.runtime, log: t.ctx.log };
    const a = createTaskRunner(deps, [task.def], { now: () => now });
    const b = createTaskRunner(deps, [task.def], { now: () => now });
    const first = a.runNow(null, 'gated_probe');
    await until(() => task.finishers.length === 1);
    await expect(a.runNow(null, 'gated_probe')).rejects.toMatchObject({ def: { code: 409 } });
    await expect(b.runNow(null, 'gated_probe')).rejects.toMatchObject({ def: { code: 409 } });
    task.finishers[0]!();
    expect((await first).status).toBe('success');

    // On a schedule: the instance whose pass comes first runs it; while that run lasts, no pass of either
    // instance starts another, however overdue the task is; once it has ended, the other instance may.
    await a.update('gated_probe', { enabled: true, interval_seconds: 1 });
    now += 1000;
    await a.tick(null);
    expect(task.finishers).toHaveLength(2);
    now += 5000;
    await b.tick(null);
    await a.tick(null);
    expect(task.overlapped()).toBe(false);
    expect(task.finishers).toHaveLength(2);
    task.finishers[1]!();
    await a.stop();
    await b.tick(null);
    expect(task.finishers).toHaveLength(3);
    task.finishers[2]!();
    await b.stop();
    await a.update('gated_probe', { enabled: false });
    expect(task.overlapped()).toBe(false);
    expect((await runs('gated_probe')).map((r) => [r.trigger, r.status])).toEqual([
      ['schedule', 'success'],
      ['schedule', 'success'],
      ['manual', 'success'],
    ]);
  });

  it('a startup run another instance is making meanwhile is noted, not warned about', async () => {
    const task = gated('gated_startup');
    const deps = { db: t.ctx.dbHandle.db, runtime: t.ctx.runtime, log: t.ctx.log };
    const a = createTaskRunner(deps, [task.def], { tickMs: 60_000 });
    const b = createTaskRunner(deps, [task.def], { tickMs: 60_000 });
    const warn = vi.spyOn(t.ctx.log, 'warn');
    const info = vi.spyOn(t.ctx.log, 'info');
    a.start(null, ['gated_startup']);
    await until(() => task.finishers.length === 1);
    b.start(null, ['gated_startup']);
    await until(() => info.mock.calls.some((call) => call.at(-1) === 'startup task run by another instance'));
    expect(warn.mock.calls.filter((call) => call.at(-1) === 'startup task not run')).toEqual([]);
    task.finishers[0]!();
    await a.stop();
    await b.stop();
    expect(task.finishers).toHaveLength(1);
  });

  it('runs the sync once at startup when configured', async () => {
    const s = await createTestApp({ openai_web: { sync_conversations_on_startup: true } }, undefined, {
      tasks: { tickMs: 50 },
    });
    try {
      await until(
        async () => (await taskRepository(s.ctx.dbHandle.db).listRuns(SYNC_TASK, 5)).length > 0,
        5000,
      );
      const [run] = await taskRepository(s.ctx.dbHandle.db).listRuns(SYNC_TASK, 5);
      expect(run).toMatchObject({ trigger: 'startup', status: 'success' });
    } finally {
      await s.close();
    }
  });
});
