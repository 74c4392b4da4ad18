import { randomBytes } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import type { ServerSlot } from './queue';
import { QueueTimeoutError } from '../errors/queue-errors';
import { RedisScheduler } from './redis-scheduler';

const url = process.env.CC_TEST_REDIS_URL;
const made: RedisScheduler[] = [];
afterAll(async () => {
  for (const s of made) await s.close();
});

const slot: ServerSlot = { key: 'default:x', id: null, baseUrl: 'http://x/', capacity: 1, weight: 1 };

/** Two schedulers on one Redis prefix behave as two instances of the product. */
function instances(n: number): RedisScheduler[] {
  const prefix = `cc_test_${randomBytes(4).toString('hex')}:`;
  return Array.from({ length: n }, () => {
    const s = new RedisScheduler(url!, prefix, () => [slot]);
    made.push(s);
    return s;
  });
}

describe.runIf(url)('RedisScheduler (several instances)', () => {
  it('shares one slot across instances, FIFO, with positions', async () => {
    const [a, b] = instances(2) as [RedisScheduler, RedisScheduler];
    const first = await a.acquire({ source: 'x', signal: new AbortController().signal, timeoutMs: 5000 });
    const positions: number[] = [];
    const order: string[] = [];
    const second = b
      .acquire({
        source: 'x',
        signal: new AbortController().signal,
        timeoutMs: 5000,
        onPosition: (p) => positions.push(p),
      })
      .then((l) => {
        order.push('second');
        return l;
      });
    const third = a
      .acquire({ source: 'x', signal: new AbortController().signal, timeoutMs: 5000 })
      .then((l) => {
        order.push('third');
        return l;
      });
    await new Promise((r) => setTimeout(r, 200));
    expect(await b.isBusy('x')).toBe(true);
    expect((await b.snapshot('x')).waiting).toBe(2);
    expect(positions[0]).toBe(1);
    first.release();
    (await second).release();
    (await third).release();
    expect(order).toEqual(['second', 'third']);
    await new Promise((r) => setTimeout(r, 50));
    expect(await a.snapshot('x')).toMatchObject({ waiting: 0, inFlight: { 'default:x': 0 } });
  });

  it('a waiter that leaves or times out frees its place', async () => {
    const [a, b] = instances(2) as [RedisScheduler, RedisScheduler];
    const held = await a.acquire({ source: 'x', signal: new AbortController().signal, timeoutMs: 5000 });
    const leaving = new AbortController();
    const left = b.acquire({ source: 'x', signal: leaving.signal, timeoutMs: 5000 });
    const timed = b.acquire({ source: 'x', signal: new AbortController().signal, timeoutMs: 300 });
    await new Promise((r) => setTimeout(r, 100));
    leaving.abort();
    await expect(left).rejects.toMatchObject({ name: 'AbortError' });
    await expect(timed).rejects.toBeInstanceOf(QueueTimeoutError);
    expect((await a.snapshot('x')).waiting).toBe(0);
    held.release();
  });
});
