import { afterEach, describe, expect, it, vi } from 'vitest';
import type { ServerSlot } from './queue';
import { until } from '../test/chat-client';
import { redisCoordination } from './redis';
import { RedisScheduler } from './redis-scheduler';

/** Nothing listens there: every connection attempt is refused at once. */
const DEAD_REDIS = 'redis://127.0.0.1:1';
/** Retry fast, so the test sees many failed attempts in little time. */
const FAST_RETRY = { retryStrategy: () => 20, maxRetriesPerRequest: 1 };

const slot: ServerSlot = { key: 'default:x', id: null, baseUrl: 'http://x/', capacity: 1, weight: 1 };

/** ioredis prints this (instead of throwing) when a client has no 'error' listener. */
function unhandledRedisErrors(spy: { mock: { calls: unknown[][] } }): unknown[][] {
  return spy.mock.calls.filter((c) => String(c[0]).includes('Unhandled error event'));
}

afterEach(() => {
  vi.restoreAllMocks();
});

describe('Redis down (connection refused)', () => {
  it('coordination: every error reaches onError, calls fail fast, nothing is left unhandled', async () => {
    const consoleError = vi.spyOn(console, 'error');
    const errors: unknown[] = [];
    const coordination = redisCoordination(
      DEAD_REDIS,
      'cc_test_dead:',
      (err) => errors.push(err),
      FAST_RETRY,
    );
    try {
      await until(() => errors.length >= 3);
      // Login throttling counts in this process meanwhile, so logins keep working.
      expect(await coordination.counter.hit('k', 60)).toBe(1);
      expect(await coordination.counter.hit('k', 60)).toBe(2);
      await expect(coordination.chatStatus.tryAcquire(1, 30)).rejects.toThrow();
      await expect(coordination.ping!()).rejects.toThrow();
      expect(unhandledRedisErrors(consoleError)).toEqual([]);
    } finally {
      await coordination.close();
    }
  });

  it('scheduler: errors of both its clients reach onError, calls fail fast, nothing is left unhandled', async () => {
    const consoleError = vi.spyOn(console, 'error');
    const errors: unknown[] = [];
    const scheduler = new RedisScheduler(DEAD_REDIS, 'cc_test_dead:', () => [slot], {
      onError: (err) => errors.push(err),
      redis: FAST_RETRY,
    });
    try {
      await until(() => errors.length >= 6);
      await expect(
        scheduler.acquire({ source: 'x', signal: new AbortController().signal, timeoutMs: 1_000 }),
      ).rejects.toThrow();
      await expect(scheduler.snapshot('x')).rejects.toThrow();
      expect(unhandledRedisErrors(consoleError)).toEqual([]);
    } finally {
      await scheduler.close();
    }
  });
});
