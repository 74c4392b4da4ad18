import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import type { ReadinessStatus } from '@cc/contracts';
import { READINESS_TIMEOUT_MS } from '../services/health.service';
import { createTestApp } from '../test/harness';
import type { TestApp } from '../test/harness';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(() => t.close());
afterEach(() => {
  vi.restoreAllMocks();
});

const redisCheck = process.env.CC_TEST_REDIS_URL ? 'ok' : 'not_configured';

async function readyz(): Promise<{
  status: number;
  body: { code: number; message: string; result: ReadinessStatus };
}> {
  const res = await t.app.inject({ url: '/api/readyz' });
  return { status: res.statusCode, body: res.json() };
}

describe('GET /api/readyz', () => {
  it('is ready when the database (and Redis, when configured) answer', async () => {
    const { status, body } = await readyz();
    expect(status).toBe(200);
    expect(body.result).toEqual({
      ready: true,
      checks: { database: 'ok', redis: redisCheck, lifecycle: 'running' },
    });
  });

  it('answers 503 naming the database when it does not answer', async () => {
    vi.spyOn(t.ctx.dbHandle, 'ping').mockRejectedValue(new Error('connection refused'));
    const { status, body } = await readyz();
    expect(status).toBe(503);
    expect(body).toMatchObject({ code: 503, message: 'errors.notReady' });
    expect(body.result).toEqual({
      ready: false,
      checks: { database: 'failed', redis: redisCheck, lifecycle: 'running' },
    });
    // Liveness does not depend on the database: the process is alive, only not ready.
    const live = await t.app.inject({ url: '/api/healthz' });
    expect(live.statusCode).toBe(200);
    expect(live.json().result).toMatchObject({ status: 'ok' });
  });

  it('answers 503 naming the database when it accepts the connection but does not answer, within 2 s', async () => {
    vi.spyOn(t.ctx.dbHandle, 'ping').mockReturnValue(new Promise<void>(() => undefined));
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    try {
      const answer = readyz();
      await vi.advanceTimersByTimeAsync(READINESS_TIMEOUT_MS);
      const { status, body } = await answer;
      expect(status).toBe(503);
      expect(body.result.checks.database).toBe('failed');
    } finally {
      vi.useRealTimers();
    }
  });

  it('logs the instance turning not ready and ready again, not every probe', async () => {
    expect((await readyz()).status).toBe(200);
    const warn = vi.spyOn(t.ctx.log, 'warn');
    const info = vi.spyOn(t.ctx.log, 'info');
    const ping = vi.spyOn(t.ctx.dbHandle, 'ping').mockRejectedValue(new Error('connection refused'));
    for (let i = 0; i < 3; i++) expect((await readyz()).status).toBe(503);
    ping.mockRestore();
    expect((await readyz()).status).toBe(200);
    expect((await readyz()).status).toBe(200);
    const said = (spy: typeof warn) => spy.mock.calls.map((call) => call.at(-1));
    expect(said(warn)).toEqual(['not ready']);
    expect(said(info).filter((m) => m === 'ready again')).toHaveLength(1);
  });

  it('answers 503 naming Redis when it is configured and does not answer', async () => {
    const coordination = t.ctx.coordination;
    const saved = coordination.ping;
    coordination.ping = () => Promise.reject(new Error('Redis PING: no answer within 1000 ms'));
    try {
      const { status, body } = await readyz();
      expect(status).toBe(503);
      expect(body.result.checks).toEqual({ database: 'ok', redis: 'failed', lifecycle: 'running' });
    } finally {
      coordination.ping = saved;
    }
  });

  // Last: draining cannot be undone.
  it('answers 503 once draining, while /api/healthz (liveness) still answers 200', async () => {
    t.ctx.lifecycle.beginDrain();
    const { status, body } = await readyz();
    expect(status).toBe(503);
    expect(body.result).toEqual({
      ready: false,
      checks: { database: 'ok', redis: redisCheck, lifecycle: 'draining' },
    });
    expect((await t.app.inject({ url: '/api/healthz' })).statusCode).toBe(200);
  });
});
