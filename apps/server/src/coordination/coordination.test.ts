import { randomBytes } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import { memoryCoordination } from './memory';
import { redisCoordination } from './redis';
import type { Coordination } from './types';

const made: Coordination[] = [];
afterAll(async () => {
  for (const c of made) await c.close();
});

const implementations: [string, () => Coordination][] = [['memory', () => memoryCoordination()]];
const redisUrl = process.env.CC_TEST_REDIS_URL;
if (redisUrl)
  implementations.push([
    'redis',
    () => redisCoordination(redisUrl, `cc_test_${randomBytes(4).toString('hex')}:`),
  ]);

describe.each(implementations)('%s coordination', (_name, make) => {
  it('counts hits in a window and resets', async () => {
    const c = make();
    made.push(c);
    expect(await c.counter.hit('k', 60)).toBe(1);
    expect(await c.counter.hit('k', 60)).toBe(2);
    expect(await c.counter.peek('k')).toBe(2);
    await c.counter.reset('k');
    expect(await c.counter.peek('k')).toBe(0);
  });

  it('chat status is a per-user lock whose lease expires', async () => {
    const c = make();
    made.push(c);
    expect(await c.chatStatus.tryAcquire(1, 60)).toBe(true);
    expect(await c.chatStatus.tryAcquire(1, 60)).toBe(false);
    expect(await c.chatStatus.get(1)).toBe('queueing');
    await c.chatStatus.set(1, 'asking');
    expect(await c.chatStatus.get(1)).toBe('asking');
    expect(await c.chatStatus.tryAcquire(2, 1)).toBe(true);
    expect([...(await c.chatStatus.all()).entries()].sort()).toEqual([
      [1, 'asking'],
      [2, 'queueing'],
    ]);
    await c.chatStatus.release(1);
    expect(await c.chatStatus.get(1)).toBeNull();
    await new Promise((r) => setTimeout(r, 1100));
    expect(await c.chatStatus.get(2)).toBeNull();
    expect(await c.chatStatus.tryAcquire(2, 60)).toBe(true);
    // Setting the status of a user who holds no lease creates nothing.
    await c.chatStatus.set(3, 'asking');
    expect(await c.chatStatus.get(3)).toBeNull();
  });
});
