import { Redis } from 'ioredis';
import type { RedisOptions } from 'ioredis';

/** A command that gets no answer within this long fails (a Redis that stalls must not hang a request). */
export const REDIS_COMMAND_TIMEOUT_MS = 2_500;

/**
 * One ioredis client with the options every client of the server uses: a command fails after one reconnection
 * attempt or `REDIS_COMMAND_TIMEOUT_MS` instead of waiting for Redis to come back, reconnection is retried at
 * least once a second (so the instance recovers quickly), and every error goes to `onError`, never to an
 * unhandled 'error' event (which would crash the process).
 */
export function createRedisClient(
  url: string,
  onError: (err: unknown) => void,
  /** Extra ioredis options (tests: a fast retry strategy). */
  options: RedisOptions = {},
): Redis {
  const redis = new Redis(url, {
    maxRetriesPerRequest: 1,
    commandTimeout: REDIS_COMMAND_TIMEOUT_MS,
    retryStrategy: (times) => Math.min(100 * times, 1_000),
    ...options,
  });
  redis.on('error', onError);
  return redis;
}

/** A copy of `redis` (same options) for a connection of its own, with its errors reported the same way. */
export function duplicateClient(
  redis: Redis,
  onError: (err: unknown) => void,
  options: RedisOptions = {},
): Redis {
  const copy = redis.duplicate(options);
  copy.on('error', onError);
  return copy;
}
