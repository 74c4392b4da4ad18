import { afterAll, beforeAll, describe, expect, it } from 'vitest';
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

beforeAll(async () => {
  t = await createTestApp({}, undefined, { tasks: { tickMs: 50, startupSync: false } });
  admin = await t.login(ADMIN.username, ADMIN.password);
});
afterAll(() => t.close());

const call = (method: 'GET' | 'POST' | 'PATCH', url: string, payload?: object) =>
  t.app.inject({ method, url, headers: { cookie: admin }, payload });
const runs = (name: string) => taskRepository(t.ctx.dbHandle.db).listRuns(name, 1000);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

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
    await until(async () => (await runs(RETENTION_TASK)).length >= 2, 6000);
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
    await sleep(200); // a run that had already started may finish
    const count = (await runs(RETENTION_TASK)).length;
    await sleep(1600);
    expect((await runs(RETENTION_TASK)).length).toBe(count);
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
  const slow = (name: string, ms: number, log: { start: number; end: number }[]): TaskDefinition => ({
    name,
    description: 'slow',
    defaults: () => ({ enabled: false, intervalSeconds: 1 }),
    async run() {
      const start = Date.now();
      await sleep(ms);
      log.push({ start, end: Date.now() });
      return 'done';
    },
  });

  it('runs one run of a task at a time, across instances too', async () => {
    const log: { start: number; end: number }[] = [];
    const def = slow('slow_probe', 300, log);
    const deps = { db: t.ctx.dbHandle.db, runtime: t.ctx.runtime, log: t.ctx.log };
    const a = createTaskRunner(deps, [def], { tickMs: 20 });
    const b = createTaskRunner(deps, [def], { tickMs: 20 });
    const first = a.runNow(null, 'slow_probe');
    await expect(a.runNow(null, 'slow_probe')).rejects.toMatchObject({ def: { code: 409 } });
    await expect(b.runNow(null, 'slow_probe')).rejects.toMatchObject({ def: { code: 409 } });
    expect((await first).status).toBe('success');

    // Two "instances" on one schedule: runs never overlap.
    await a.update('slow_probe', { enabled: true, interval_seconds: 1 });
    a.start(null);
    b.start(null);
    await until(() => log.length >= 3, 8000);
    await a.update('slow_probe', { enabled: false });
    await Promise.all([a.stop(), b.stop()]);
    const sorted = [...log].sort((x, y) => x.start - y.start);
    for (let i = 1; i < sorted.length; i++)
      expect(sorted[i]!.start).toBeGreaterThanOrEqual(sorted[i - 1]!.end);
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
