import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';

/** A test's own key prefix on the shared Redis (`cc_test_<random>:`): what `dropRedisKeys` removes afterwards. */
export function testRedisPrefix(): string {
  return `cc_test_${randomBytes(6).toString('hex')}:`;
}

/**
 * Removes every key under a test's prefix, so that runs leave nothing behind in a Redis other runs share. A Redis
 * that cannot be reached (an outage test's) has nothing to remove.
 */
export async function dropRedisKeys(url: string, prefix: string): Promise<void> {
  if (!/^cc_test_[0-9a-f]+:$/.test(prefix)) throw new Error(`not a test prefix: ${prefix}`);
  const redis = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 1, retryStrategy: () => null });
  redis.on('error', () => undefined);
  try {
    await redis.connect();
    let cursor = '0';
    do {
      const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 500);
      if (keys.length > 0) await redis.unlink(...keys);
      cursor = next;
    } while (cursor !== '0');
  } catch {
    // Unreachable: nothing to remove.
  } finally {
    redis.disconnect();
  }
}
