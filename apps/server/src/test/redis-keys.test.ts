import { Redis } from 'ioredis';
import { afterAll, describe, expect, it } from 'vitest';
import { createTestApp } from './harness';

// Runs in the PostgreSQL + Redis suite (CC_TEST_REDIS_URL).
const REDIS = process.env.CC_TEST_REDIS_URL;

describe.runIf(REDIS)('test apps on the shared Redis', () => {
  const direct = new Redis(REDIS ?? '', { lazyConnect: true });
  afterAll(() => direct.disconnect());

  it('leave no key of their own behind once closed', async () => {
    const t = await createTestApp();
    const prefix = t.ctx.config.data.redis_prefix;
    expect(prefix).toMatch(/^cc_test_[0-9a-f]+:$/);
    const u = await t.createUser();
    await t.login(u.row.username, u.password);
    const keys = () => direct.keys(`${prefix}*`);
    expect((await keys()).length).toBeGreaterThan(0);
    await t.close();
    expect(await keys()).toEqual([]);
  });
});
