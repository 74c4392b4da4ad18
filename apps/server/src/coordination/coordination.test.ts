import { afterAll, describe, expect, it } from 'vitest';
import { until } from '../test/chat-client';
import { dropRedisKeys, testRedisPrefix } from '../test/redis-keys';
import { memoryCoordination } from './memory';
import { redisCoordination } from './redis';
import type { Coordination } from './types';

/** An implementation under test; `advance` moves its clock when the test owns it (memory), not Redis's. */
interface Subject {
  c: Coordination;
  advance?: (ms: number) => void;
}

const made: Coordination[] = [];
const prefixes: string[] = [];
afterAll(async () => {
  for (const c of made) await c.close();
  for (const prefix of prefixes) await dropRedisKeys(redisUrl!, prefix);
});

function memory(): Subject {
  let now = Date.parse('2024-01-01T00:00:00Z');
  return {
    c: memoryCoordination({ now: () => now }),
    advance: (ms) => {
      now += ms;
    },
  };
}

const implementations: [string, () => Subject][] = [['memory', memory]];
const redisUrl = process.env.CC_TEST_REDIS_URL;
if (redisUrl)
  implementations.push([
    'redis',
    () => {
      const prefix = testRedisPrefix();
      prefixes.push(prefix);
      return { c: redisCoordination(redisUrl, prefix) };
    },
  ]);

describe.each(implementations)('%s coordination', (_name, make) => {
  it('counts hits in a window and resets', async () => {
    const { c, advance } = make();
    made.push(c);
    await c.ready?.();
    expect(await c.counter.hit('k', 60)).toBe(1);
    expect(await c.counter.hit('k', 60)).toBe(2);
    expect(await c.counter.peek('k')).toBe(2);
    await c.counter.reset('k');
    expect(await c.counter.peek('k')).toBe(0);
    if (advance) {
      // The window ends 60 s after its first hit.
      await c.counter.hit('w', 60);
      advance(59_999);
      expect(await c.counter.hit('w', 60)).toBe(2);
      advance(1);
      expect(await c.counter.peek('w')).toBe(0);
      expect(await c.counter.hit('w', 60)).toBe(1);
    }
  });

  it('takes back a hit inside the window only', async () => {
    const { c, advance } = make();
    made.push(c);
    await c.ready?.();
    await c.counter.hit('d', 60);
    await c.counter.hit('d', 60);
    await c.counter.decrement('d');
    expect(await c.counter.peek('d')).toBe(1);
    await c.counter.decrement('d');
    await c.counter.decrement('d');
    expect(await c.counter.peek('d')).toBe(0);
    expect(await c.counter.hit('d', 60)).toBe(1);
    await c.counter.decrement('never-hit');
    expect(await c.counter.peek('never-hit')).toBe(0);
    if (advance) {
      advance(60_000);
      await c.counter.decrement('d');
      expect(await c.counter.hit('d', 60)).toBe(1);
    }
  });

  it('chat status is a per-user lock whose lease expires', async () => {
    const { c, advance } = make();
    made.push(c);
    await c.ready?.();
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
    // User 2's 1 s lease runs out: on the test's clock (memory), or on Redis's own clock, polled.
    if (advance) {
      advance(999);
      expect(await c.chatStatus.get(2)).toBe('queueing');
      advance(1);
      expect(await c.chatStatus.get(2)).toBeNull();
    } else {
      await until(async () => (await c.chatStatus.get(2)) === null, 5000);
    }
    expect(await c.chatStatus.tryAcquire(2, 60)).toBe(true);
    // Setting the status of a user who holds no lease creates nothing.
    await c.chatStatus.set(3, 'asking');
    expect(await c.chatStatus.get(3)).toBeNull();
  });

  it('an answer begun again under its id (a question handed back, asked again) starts afresh', async () => {
    const { c } = make();
    made.push(c);
    await c.ready?.();
    await c.answers.begin(7, 'ask-1');
    c.answers.append(7, 'ask-1', 'queued');
    await c.answers.end(7, 'ask-1', { code: 1012, reason: 'errors.serverRestarting' });
    await c.answers.begin(7, 'ask-1');
    c.answers.append(7, 'ask-1', 'answered');
    await c.answers.end(7, 'ask-1', { code: 1000, reason: 'tips.finished' });
    const followed = await c.answers.follow(7, 'ask-1', 0, new AbortController().signal);
    const entries: unknown[] = [];
    for await (const entry of followed!.entries) entries.push(entry);
    expect(entries).toEqual([{ frame: 'answered' }, { end: { code: 1000, reason: 'tips.finished' } }]);
  });
});

describe.runIf(!!redisUrl)('redis coordination, starting', () => {
  it('reports no error when Redis is there (the first SUBSCRIBE went before the connection was ready)', async () => {
    const errors: unknown[] = [];
    const prefix = testRedisPrefix();
    prefixes.push(prefix);
    const c = redisCoordination(redisUrl!, prefix, (err) => errors.push(err));
    made.push(c);
    await c.changes.listening;
    await c.ready?.();
    expect(errors).toEqual([]);
  });
});
