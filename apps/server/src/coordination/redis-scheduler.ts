import { randomUUID } from 'node:crypto';
import type { Redis, RedisOptions } from 'ioredis';
import { NoServerError, QueueTimeoutError } from '../errors/queue-errors';
import { LEASE_REBUILD_MS, LEASE_RENEW_MS, LEASE_TTL_MS } from './leases';
import type { AcquireRequest, Lease, QueueScheduler, ServerSlot } from './queue';
import { BOOT_WAIT_MS, createRedisClient, whenReady } from './redis-client';

/** A waiter that stops refreshing its ticket (its instance died) leaves the queue after this long. */
const TICKET_TTL_MS = 10_000;
/** Waiters re-check at least this often, besides the release notifications. */
const POLL_MS = 500;

/**
 * One atomic step of a waiter: drop dead waiters ahead of it, count free slots (expired leases removed), and take
 * a slot when the waiter is within the first `free` live waiters. Returns {0, serverKey} or {position}.
 * No slot is granted while `rebuild` exists (Redis came back: holders re-register their slots first); a missing
 * `epoch` means Redis lost its data, which starts such a rebuild.
 */
const STEP = `
local q = KEYS[1]
local me = ARGV[1]
local now = tonumber(ARGV[2])
local ttl = tonumber(ARGV[3])
local prefix = ARGV[4]
local servers = cjson.decode(ARGV[5])
local prefer = ARGV[6]
local leaseId = ARGV[7]
if redis.call('EXISTS', prefix .. 'epoch') == 0 then
  redis.call('SET', prefix .. 'epoch', '1')
  redis.call('SET', prefix .. 'rebuild', '1', 'PX', ARGV[8])
end
local rebuilding = redis.call('EXISTS', prefix .. 'rebuild') == 1
local rank = nil
local live = 0
for _, t in ipairs(redis.call('ZRANGE', q, 0, -1)) do
  if t == me then rank = live break end
  if redis.call('EXISTS', prefix .. 't:' .. t) == 0 then redis.call('ZREM', q, t) else live = live + 1 end
end
if rank == nil then return {-1} end
local free = 0
local best = nil
local bestLoad = nil
for _, s in ipairs(servers) do
  local lk = prefix .. 'l:' .. s.key
  redis.call('ZREMRANGEBYSCORE', lk, '-inf', now)
  local used = redis.call('ZCARD', lk)
  if used < s.capacity then
    free = free + (s.capacity - used)
    local load = used / s.weight
    if s.key == prefer then best = s.key bestLoad = -1
    elseif bestLoad == nil or load < bestLoad then best = s.key bestLoad = load end
  end
end
if best ~= nil and rank < free and not rebuilding then
  redis.call('ZADD', prefix .. 'l:' .. best, now + ttl, leaseId)
  redis.call('ZREM', q, me)
  redis.call('DEL', prefix .. 't:' .. me)
  return {0, best}
end
return {rank + 1}
`;

/**
 * Renews one held slot (KEYS[1] the server's lease set, ARGV: lease id, now, ttl, capacity). A slot Redis lost
 * (restarted empty, or expired during an outage) is taken again while the server has room: 1 renewed, 2 taken
 * again, 0 lost (another ask holds it now).
 */
const RENEW = `
local lk = KEYS[1]
local now = tonumber(ARGV[2])
redis.call('ZREMRANGEBYSCORE', lk, '-inf', now)
if redis.call('ZSCORE', lk, ARGV[1]) then
  redis.call('ZADD', lk, now + tonumber(ARGV[3]), ARGV[1])
  return 1
end
if redis.call('ZCARD', lk) < tonumber(ARGV[4]) then
  redis.call('ZADD', lk, now + tonumber(ARGV[3]), ARGV[1])
  return 2
end
return 0
`;

/** A slot this process holds. */
interface HeldSlot {
  key: string;
  capacity: number;
}

type StepClient = Redis & {
  ccStep: (...a: unknown[]) => Promise<unknown[]>;
  ccRenew: (...a: unknown[]) => Promise<number>;
};

/**
 * The queue shared by every instance: FIFO tickets in a sorted set, one leased-slot set per server, release
 * notifications over pub/sub. Slots and tickets expire when their instance stops renewing them, so a crash never
 * keeps the upstream blocked.
 */
export class RedisScheduler implements QueueScheduler {
  private readonly redis: StepClient;
  private readonly sub: Redis;
  private readonly wakers = new Map<string, Set<() => void>>();
  /** Slots held by this process, renewed together by one heartbeat. */
  private readonly held = new Map<string, HeldSlot>();
  private readonly heartbeat: NodeJS.Timeout;
  /** The connection was lost: before the next step, hold grants back and re-register the slots held here. */
  private reconnected = false;
  private readonly onError: (err: unknown) => void;

  constructor(
    url: string,
    private readonly prefix: string,
    private readonly servers: (source: string) => ServerSlot[],
    options: {
      /** Gets every client error (throttle it), so none is an unhandled 'error' event. */
      onError?: (err: unknown) => void;
      /** Extra ioredis options (tests: a fast retry strategy). */
      redis?: RedisOptions;
    } = {},
  ) {
    const onError = options.onError ?? (() => undefined);
    this.onError = onError;
    this.redis = createRedisClient(url, onError, options.redis) as StepClient;
    // Subscribes before it is connected, and again by itself after each reconnection.
    this.sub = createRedisClient(url, onError, { enableOfflineQueue: true, ...options.redis });
    this.redis.defineCommand('ccStep', { numberOfKeys: 1, lua: STEP });
    this.redis.defineCommand('ccRenew', { numberOfKeys: 1, lua: RENEW });
    this.sub.on('message', (channel: string) => {
      for (const wake of this.wakers.get(channel) ?? []) wake();
    });
    let connected = false;
    this.redis.on('close', () => (this.reconnected = connected));
    this.redis.on('ready', () => {
      // The first command: a fresh prefix is not mistaken for data Redis lost.
      if (!connected) this.redis.set(`${prefix}epoch`, '1', 'NX').catch(onError);
      connected = true;
      if (this.reconnected) this.rebuild().catch(onError);
    });
    this.heartbeat = setInterval(() => void this.renewAll().catch(onError), LEASE_RENEW_MS);
    this.heartbeat.unref();
  }

  /**
   * After a lost connection: no instance grants a slot for a while (Redis may have restarted empty, or the leases
   * expired meanwhile), and this one re-registers the slots it still holds, so capacity is never exceeded.
   */
  private async rebuild(): Promise<void> {
    if (!this.reconnected) return;
    this.reconnected = false;
    await this.redis.set(`${this.prefix}rebuild`, '1', 'PX', LEASE_REBUILD_MS);
    await this.redis.set(`${this.prefix}epoch`, '1');
    await this.renewAll();
  }

  private async renewAll(): Promise<void> {
    for (const [leaseId, slot] of this.held) {
      const result = await this.redis.ccRenew(
        `${this.prefix}l:${slot.key}`,
        leaseId,
        Date.now(),
        LEASE_TTL_MS,
        slot.capacity,
      );
      if (result === 0 && this.held.has(leaseId))
        this.onError(new Error(`the slot of an answer in flight on ${slot.key} was taken by another ask`));
    }
  }

  private channel(source: string): string {
    return `${this.prefix}free:${source}`;
  }

  private async notify(source: string): Promise<void> {
    await this.redis.publish(this.channel(source), '1');
  }

  async acquire(req: AcquireRequest): Promise<Lease> {
    if (req.signal.aborted) throw new DOMException('aborted', 'AbortError');
    const candidates = this.servers(req.source).filter((s) => !req.excludeKeys?.includes(s.key));
    if (candidates.length === 0) throw new NoServerError(req.source);
    const ticket = randomUUID();
    const queue = `${this.prefix}q:${req.source}`;
    const enqueuedAt = Date.now();
    const seq = await this.redis.incr(`${this.prefix}qseq:${req.source}`);
    await this.redis
      .multi()
      .set(`${this.prefix}t:${ticket}`, '1', 'PX', TICKET_TTL_MS)
      .zadd(queue, seq, ticket)
      .exec();

    const channel = this.channel(req.source);
    let wake: () => void = () => undefined;
    const wakeSet = this.wakers.get(channel) ?? new Set();
    this.wakers.set(channel, wakeSet);
    if (wakeSet.size === 0) await this.sub.subscribe(channel);
    const waker = () => wake();
    wakeSet.add(waker);
    const leave = async () => {
      wakeSet.delete(waker);
      await this.redis.multi().zrem(queue, ticket).del(`${this.prefix}t:${ticket}`).exec();
      await this.notify(req.source);
    };

    let lastPosition = 0;
    try {
      for (;;) {
        if (req.signal.aborted) throw new DOMException('aborted', 'AbortError');
        if (Date.now() - enqueuedAt > req.timeoutMs) throw new QueueTimeoutError();
        const servers = this.servers(req.source).filter((s) => !req.excludeKeys?.includes(s.key));
        if (servers.length === 0) throw new NoServerError(req.source);
        await this.rebuild();
        const leaseId = randomUUID();
        const result = (await this.redis.ccStep(
          queue,
          ticket,
          Date.now(),
          LEASE_TTL_MS,
          this.prefix,
          JSON.stringify(servers.map((s) => ({ key: s.key, capacity: s.capacity, weight: s.weight }))),
          req.preferKey ?? '',
          leaseId,
          LEASE_REBUILD_MS,
        )) as [number, string?];
        if (result[0] === 0 && result[1]) {
          wakeSet.delete(waker);
          const server = servers.find((s) => s.key === result[1])!;
          return this.lease(req.source, server, leaseId, (Date.now() - enqueuedAt) / 1000);
        }
        if (result[0] === -1) {
          // Our ticket expired (a long pause): queue again at the back.
          await this.redis
            .multi()
            .set(`${this.prefix}t:${ticket}`, '1', 'PX', TICKET_TTL_MS)
            .zadd(queue, await this.redis.incr(`${this.prefix}qseq:${req.source}`), ticket)
            .exec();
          continue;
        }
        if (result[0] !== lastPosition) {
          lastPosition = result[0];
          req.onPosition?.(lastPosition);
        }
        await this.redis.pexpire(`${this.prefix}t:${ticket}`, TICKET_TTL_MS);
        await new Promise<void>((resolve) => {
          const done = () => {
            clearTimeout(timer);
            req.signal.removeEventListener('abort', done);
            resolve();
          };
          const timer = setTimeout(done, POLL_MS);
          req.signal.addEventListener('abort', done, { once: true });
          wake = done;
        });
      }
    } catch (e) {
      await leave().catch(() => undefined);
      throw e;
    }
  }

  private lease(source: string, server: ServerSlot, leaseId: string, queuedSeconds: number): Lease {
    const key = `${this.prefix}l:${server.key}`;
    this.held.set(leaseId, { key: server.key, capacity: server.capacity });
    let released = false;
    return {
      server,
      queuedSeconds,
      release: () => {
        if (released) return;
        released = true;
        this.held.delete(leaseId);
        void this.redis
          .zrem(key, leaseId)
          .then(() => this.notify(source))
          .catch(() => undefined);
      },
    };
  }

  async snapshot(
    source: string,
  ): Promise<{ inFlight: Record<string, number>; waiting: number; capacity: number }> {
    const servers = this.servers(source);
    const now = Date.now();
    const inFlight: Record<string, number> = {};
    for (const s of servers)
      inFlight[s.key] = await this.redis.zcount(`${this.prefix}l:${s.key}`, now, '+inf');
    return {
      inFlight,
      waiting: await this.redis.zcard(`${this.prefix}q:${source}`),
      capacity: servers.reduce((n, s) => n + s.capacity, 0),
    };
  }

  async isBusy(source: string): Promise<boolean> {
    const snap = await this.snapshot(source);
    const servers = this.servers(source);
    return servers.length > 0 && servers.every((s) => (snap.inFlight[s.key] ?? 0) >= s.capacity);
  }

  ready(): Promise<void> {
    return Promise.all([whenReady(this.redis, BOOT_WAIT_MS), whenReady(this.sub, BOOT_WAIT_MS)]).then(
      () => undefined,
    );
  }

  async close(): Promise<void> {
    clearInterval(this.heartbeat);
    await this.sub.quit().catch(() => this.sub.disconnect());
    await this.redis.quit().catch(() => this.redis.disconnect());
  }
}
