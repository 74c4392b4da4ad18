import { afterAll, describe, expect, it } from 'vitest';
import type { ServerSlot } from './queue';
import { QueueTimeoutError } from '../errors/queue-errors';
import { until } from '../test/chat-client';
import { dropRedisKeys, testRedisPrefix } from '../test/redis-keys';
import { Redis } from 'ioredis';
import { TcpProxy } from '../test/tcp-proxy';
import { RedisScheduler } from './redis-scheduler';

const url = process.env.CC_TEST_REDIS_URL;
const made: RedisScheduler[] = [];
const prefixes: string[] = [];
afterAll(async () => {
  for (const s of made) await s.close();
  for (const prefix of prefixes) await dropRedisKeys(url!, prefix);
});

const slot: ServerSlot = { key: 'default:x', id: null, baseUrl: 'http://x/', capacity: 1, weight: 1 };

/** Two schedulers on one Redis prefix behave as two instances of the product. */
async function instances(n: number): Promise<RedisScheduler[]> {
  const prefix = testRedisPrefix();
  prefixes.push(prefix);
  const schedulers = Array.from({ length: n }, () => {
    const s = new RedisScheduler(url!, prefix, () => [slot]);
    made.push(s);
    return s;
  });
  await Promise.all(schedulers.map((s) => s.ready()));
  return schedulers;
}

describe.runIf(url)('RedisScheduler (several instances)', () => {
  it('shares one slot across instances, FIFO, with positions', async () => {
    const [a, b] = (await instances(2)) as [RedisScheduler, RedisScheduler];
    const first = await a.acquire({ source: 'x', signal: new AbortController().signal, timeoutMs: 20_000 });
    const positions: number[] = [];
    const order: string[] = [];
    const second = b
      .acquire({
        source: 'x',
        signal: new AbortController().signal,
        timeoutMs: 20_000,
        onPosition: (p) => positions.push(p),
      })
      .then((l) => {
        order.push('second');
        return l;
      });
    // The second is in the queue before the third asks (they ask through different connections).
    await until(() => positions.length > 0);
    const third = a
      .acquire({ source: 'x', signal: new AbortController().signal, timeoutMs: 20_000 })
      .then((l) => {
        order.push('third');
        return l;
      });
    await until(async () => (await b.snapshot('x')).waiting === 2);
    expect(await b.isBusy('x')).toBe(true);
    expect(positions).toEqual([1]);
    first.release();
    (await second).release();
    (await third).release();
    expect(order).toEqual(['second', 'third']);
    // release() returns at once; the slot is freed in Redis just after.
    await until(async () => (await a.snapshot('x')).inFlight['default:x'] === 0);
    expect(await a.snapshot('x')).toMatchObject({ waiting: 0, inFlight: { 'default:x': 0 } });
  });

  it('a waiter that leaves or times out frees its place', async () => {
    const [a, b] = (await instances(2)) as [RedisScheduler, RedisScheduler];
    const held = await a.acquire({ source: 'x', signal: new AbortController().signal, timeoutMs: 20_000 });
    const leaving = new AbortController();
    let queued = false;
    const left = b.acquire({
      source: 'x',
      signal: leaving.signal,
      timeoutMs: 20_000,
      onPosition: () => (queued = true),
    });
    await until(() => queued);
    expect((await a.snapshot('x')).waiting).toBe(1);
    leaving.abort();
    await expect(left).rejects.toMatchObject({ name: 'AbortError' });
    expect((await a.snapshot('x')).waiting).toBe(0);
    const timed = b.acquire({ source: 'x', signal: new AbortController().signal, timeoutMs: 300 });
    await expect(timed).rejects.toBeInstanceOf(QueueTimeoutError);
    expect((await a.snapshot('x')).waiting).toBe(0);
    held.release();
  });

  it('Redis back empty: a slot still held by another instance is not granted before it is re-registered', async () => {
    const prefix = testRedisPrefix();
    prefixes.push(prefix);
    // Each instance reaches Redis through its own proxy, so they can come back at different times.
    const [pa, pb] = await Promise.all([TcpProxy.forUrl(url!), TcpProxy.forUrl(url!)]);
    const direct = new Redis(url!);
    const a = new RedisScheduler(pa.url, prefix, () => [slot]);
    const b = new RedisScheduler(pb.url, prefix, () => [slot]);
    made.push(a, b);
    try {
      await Promise.all([a.ready(), b.ready()]);
      const held = await a.acquire({ source: 'x', signal: new AbortController().signal, timeoutMs: 20_000 });
      pa.proxy.cut();
      pb.proxy.cut();
      const keys = await direct.keys(`${prefix}*`);
      if (keys.length > 0) await direct.del(...keys);
      // B is back first and asks at once: the slot looks free, but A still runs its answer.
      pb.proxy.restore();
      await until(async () => (await b.snapshot('x').catch(() => null)) !== null, 10_000);
      let granted = false;
      const waiting = b.acquire({ source: 'x', signal: new AbortController().signal, timeoutMs: 30_000 });
      void waiting.then(() => (granted = true));
      await until(async () => (await direct.exists(`${prefix}rebuild`)) === 1, 5_000);
      pa.proxy.restore();
      // A re-registers its slot; B keeps waiting past the rebuild window.
      await until(async () => (await direct.zcard(`${prefix}l:default:x`)) === 1, 10_000);
      await until(async () => (await direct.exists(`${prefix}rebuild`)) === 0, 10_000);
      expect(granted).toBe(false);
      held.release();
      (await waiting).release();
    } finally {
      direct.disconnect();
      await Promise.all([pa.proxy.close(), pb.proxy.close()]);
    }
  }, 40_000);
});
