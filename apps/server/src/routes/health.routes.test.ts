import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import type { ReadinessStatus } from '@cc/contracts';
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
