import { Redis } from 'ioredis';
import type { RedisOptions } from 'ioredis';

/** How long a starting instance waits for Redis before it serves anyway. */
export const BOOT_WAIT_MS = 5_000;

/** A command that gets no answer within this long fails (a Redis that stalls must not hang a request). */
export const REDIS_COMMAND_TIMEOUT_MS = 2_500;

/**
 * One ioredis client with the options every client of the server uses: while Redis is unreachable a command fails
 * at once (no offline queue: a login or a page must not wait for Redis), one that gets no answer fails after
 * `REDIS_COMMAND_TIMEOUT_MS`; reconnection is retried at least once a second (so the instance recovers quickly),
 * and every error goes to `onError`, never to an unhandled 'error' event (which would crash the process).
 * Wait for `whenReady` before the first command.
 */
export function createRedisClient(
  url: string,
  onError: (err: unknown) => void,
  /** Extra ioredis options (tests: a fast retry strategy). */
  options: RedisOptions = {},
): Redis {
  const redis = new Redis(url, {
    maxRetriesPerRequest: 1,
    enableOfflineQueue: false,
    commandTimeout: REDIS_COMMAND_TIMEOUT_MS,
    retryStrategy: (times) => Math.min(100 * times, 1_000),
    ...options,
  });
  redis.on('error', onError);
  return redis;
}

/**
 * Resolves once `redis` is connected, or after `ms` (a Redis that is down at boot does not stop the instance from
 * starting: readiness reports it, and the client keeps reconnecting).
 */
export function whenReady(redis: Redis, ms: number): Promise<void> {
  if (redis.status === 'ready') return Promise.resolve();
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      redis.off('ready', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    redis.on('ready', done);
  });
}
