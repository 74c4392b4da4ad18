import { describe, expect, it } from 'vitest';
import { NoServerError, QueueTimeoutError } from '../errors/queue-errors';
import { Scheduler } from './scheduler';
import type { ServerSlot } from '../coordination/queue';

const slot = (key: string, capacity = 1): ServerSlot => ({
  key,
  id: null,
  baseUrl: `http://${key}/`,
  capacity,
  weight: 1,
});

describe('Scheduler', () => {
  it('runs at most `capacity` at once and serves the queue FIFO with positions', async () => {
    const s = new Scheduler(() => [slot('a')]);
    const first = await s.acquire({ source: 'x', signal: new AbortController().signal, timeoutMs: 1000 });
    const positions: number[][] = [[], []];
    const order: number[] = [];
    const second = s
      .acquire({
        source: 'x',
        signal: new AbortController().signal,
        timeoutMs: 1000,
        onPosition: (p) => positions[0]!.push(p),
      })
      .then((l) => {
        order.push(2);
        return l;
      });
    const third = s
      .acquire({
        source: 'x',
        signal: new AbortController().signal,
        timeoutMs: 1000,
        onPosition: (p) => positions[1]!.push(p),
      })
      .then((l) => {
        order.push(3);
        return l;
      });
    expect(await s.snapshot('x')).toMatchObject({ waiting: 2, inFlight: { a: 1 } });
    expect(await s.isBusy('x')).toBe(true);
    first.release();
    (await second).release();
    (await third).release();
    expect(order).toEqual([2, 3]);
    expect(positions).toEqual([[1], [2, 1]]);
    expect(await s.snapshot('x')).toMatchObject({ waiting: 0, inFlight: { a: 0 } });
  });

  it('removes a waiter whose client left, and times out', async () => {
    const s = new Scheduler(() => [slot('a')]);
    const held = await s.acquire({ source: 'x', signal: new AbortController().signal, timeoutMs: 1000 });
    const leaving = new AbortController();
    const left = s.acquire({ source: 'x', signal: leaving.signal, timeoutMs: 1000 });
    const timed = s.acquire({ source: 'x', signal: new AbortController().signal, timeoutMs: 30 });
    leaving.abort();
    await expect(left).rejects.toMatchObject({ name: 'AbortError' });
    await expect(timed).rejects.toBeInstanceOf(QueueTimeoutError);
    expect((await s.snapshot('x')).waiting).toBe(0);
    held.release();
    held.release(); // double release is harmless
    expect((await s.snapshot('x')).inFlight.a).toBe(0);
  });

  it('spreads over servers, prefers a sticky one, and fails with no server', async () => {
    const s = new Scheduler((source) => (source === 'none' ? [] : [slot('a'), slot('b')]));
    const l1 = await s.acquire({ source: 'x', signal: new AbortController().signal, timeoutMs: 100 });
    const l2 = await s.acquire({ source: 'x', signal: new AbortController().signal, timeoutMs: 100 });
    expect(new Set([l1.server.key, l2.server.key])).toEqual(new Set(['a', 'b']));
    l1.release();
    l2.release();
    const sticky = await s.acquire({
      source: 'x',
      preferKey: 'b',
      signal: new AbortController().signal,
      timeoutMs: 100,
    });
    expect(sticky.server.key).toBe('b');
    sticky.release();
    const failover = await s.acquire({
      source: 'x',
      excludeKeys: ['a'],
      signal: new AbortController().signal,
      timeoutMs: 100,
    });
    expect(failover.server.key).toBe('b');
    failover.release();
    await expect(
      s.acquire({ source: 'none', signal: new AbortController().signal, timeoutMs: 100 }),
    ).rejects.toBeInstanceOf(NoServerError);
  });
});
