import type { Redis, RedisOptions } from 'ioredis';
import { MemoryCounter } from './memory';
import { RedisAnswerLog } from './redis-answer-log';
import { RedisChangeChannel } from './redis-changes';
import { BOOT_WAIT_MS, createRedisClient, whenReady } from './redis-client';
import { withTimeout } from './warn-throttle';
import type { ChatStatusRegistry, Coordination, Counter, LiveChatStatus } from './types';

const DECREMENT_IF_LIVE = `if redis.call('GET', KEYS[1]) and tonumber(redis.call('GET', KEYS[1])) > 0 then
  redis.call('DECR', KEYS[1])
end
return 0`;

/** Fixed-window counters shared by every instance. */
class RedisCounter implements Counter {
  constructor(
    private readonly redis: Redis,
    private readonly prefix: string,
  ) {}

  async hit(key: string, windowSeconds: number): Promise<number> {
    const k = `${this.prefix}counter:${key}`;
    const [[, count]] = (await this.redis.multi().incr(k).expire(k, windowSeconds, 'NX').exec()) as [
      [null, number],
      unknown,
    ];
    return count;
  }

  async decrement(key: string): Promise<void> {
    // Only while the window lives: a DECR after expiry would leave a key without TTL at -1.
    await this.redis.eval(DECREMENT_IF_LIVE, 1, `${this.prefix}counter:${key}`);
  }

  async peek(key: string): Promise<number> {
    return Number((await this.redis.get(`${this.prefix}counter:${key}`)) ?? 0);
  }

  async reset(key: string): Promise<void> {
    await this.redis.del(`${this.prefix}counter:${key}`);
  }
}

/**
 * The shared counters while Redis answers; this process's own counters while it does not, so that logins (whose
 * throttle counts here) keep working through a Redis outage, throttled per instance meanwhile.
 */
class FallbackCounter implements Counter {
  constructor(
    private readonly shared: Counter,
    private readonly local: Counter,
    private readonly onError: (err: unknown) => void,
  ) {}

  private async run<T>(call: (c: Counter) => Promise<T>): Promise<T> {
    try {
      return await call(this.shared);
    } catch (err) {
      this.onError(err);
      return call(this.local);
    }
  }

  hit(key: string, windowSeconds: number): Promise<number> {
    return this.run((c) => c.hit(key, windowSeconds));
  }

  decrement(key: string): Promise<void> {
    return this.run((c) => c.decrement(key));
  }

  peek(key: string): Promise<number> {
    return this.run((c) => c.peek(key));
  }

  reset(key: string): Promise<void> {
    return this.run((c) => c.reset(key));
  }
}

/**
 * Chat statuses as keys with a TTL: `SET NX EX` is the one-client-per-user lock across instances, and an
 * instance that dies leaves nothing behind for longer than the lease.
 */
class RedisChatStatus implements ChatStatusRegistry {
  /** The statuses this process holds, so that a renewal re-creates a key Redis lost (restarted empty). */
  private readonly held = new Map<number, LiveChatStatus>();

  constructor(
    private readonly redis: Redis,
    private readonly prefix: string,
  ) {}

  private key(userId: number): string {
    return `${this.prefix}chat:${userId}`;
  }

  async tryAcquire(userId: number, leaseSeconds: number): Promise<boolean> {
    const taken = (await this.redis.set(this.key(userId), 'queueing', 'EX', leaseSeconds, 'NX')) === 'OK';
    if (taken) this.held.set(userId, 'queueing');
    return taken;
  }

  async set(userId: number, status: LiveChatStatus): Promise<void> {
    if (this.held.has(userId)) this.held.set(userId, status);
    await this.redis.set(this.key(userId), status, 'KEEPTTL', 'XX');
  }

  async renew(userId: number, leaseSeconds: number): Promise<void> {
    const status = this.held.get(userId);
    // A plain SET: the key comes back if Redis lost it (an outage longer than the lease, or a restart).
    if (status) await this.redis.set(this.key(userId), status, 'EX', leaseSeconds);
    else await this.redis.expire(this.key(userId), leaseSeconds);
  }

  async release(userId: number): Promise<void> {
    this.held.delete(userId);
    await this.redis.del(this.key(userId));
  }

  async get(userId: number): Promise<LiveChatStatus | null> {
    return (await this.redis.get(this.key(userId))) as LiveChatStatus | null;
  }

  async all(): Promise<Map<number, LiveChatStatus>> {
    const out = new Map<number, LiveChatStatus>();
    let cursor = '0';
    do {
      const [next, keys] = await this.redis.scan(cursor, 'MATCH', `${this.prefix}chat:*`, 'COUNT', 500);
      cursor = next;
      if (keys.length > 0) {
        const values = await this.redis.mget(keys);
        keys.forEach((k, i) => {
          const v = values[i];
          if (v) out.set(Number(k.slice(k.lastIndexOf(':') + 1)), v as LiveChatStatus);
        });
      }
    } while (cursor !== '0');
    return out;
  }
}

/** How long the readiness PING waits for Redis. */
const PING_TIMEOUT_MS = 1_000;

/**
 * Coordination through Redis, for several instances behind one load balancer. Every client it opens reports its
 * errors to `onError` (throttle it: a Redis that is down fails every retry), never as an unhandled 'error' event.
 */
export function redisCoordination(
  url: string,
  prefix = 'cc:',
  onError: (err: unknown) => void = () => undefined,
  /** Extra ioredis options (tests: a fast retry strategy). */
  redisOptions: RedisOptions = {},
): Coordination {
  // The rate-limit store shares this client, so its error listener covers it too.
  const redis = createRedisClient(url, onError, redisOptions);
  const answers = new RedisAnswerLog(redis, prefix, onError);
  const changes = new RedisChangeChannel(redis, prefix, onError);
  return {
    answers,
    changes,
    counter: new FallbackCounter(new RedisCounter(redis, prefix), new MemoryCounter(), onError),
    chatStatus: new RedisChatStatus(redis, prefix),
    rateLimitStore: { redis, nameSpace: `${prefix}rate-limit:` },
    ready: () => whenReady(redis, BOOT_WAIT_MS),
    ping: async () => {
      await withTimeout(redis.ping(), PING_TIMEOUT_MS, 'Redis PING');
    },
    close: async () => {
      await answers.close();
      await changes.close();
      await redis.quit().catch(() => redis.disconnect());
    },
  };
}
