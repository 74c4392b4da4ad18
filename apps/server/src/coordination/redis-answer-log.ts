import type { Redis } from 'ioredis';
import { ANSWER_RETAIN_MS, StopListeners } from './answer-log';
import { REDIS_COMMAND_TIMEOUT_MS } from './redis-client';
import type { AnswerEnd, AnswerEntry, AnswerLog, FollowedAnswer, StopReason } from './answer-log';

/** An answer in flight keeps its keys this long after the last frame (renewed while it streams). */
const STREAMING_TTL_SECONDS = 600;
const RENEW_EVERY_MS = 30_000;
const ERROR_REPORT_MS = 10_000;
/** Deletes KEYS[1] when it still holds ARGV[1] (a newer answer of the user is left alone). */
const DELETE_IF_EQUAL =
  "if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end return 0";
/** A blocked read returns this often to notice an answer whose keys expired. */
const READ_BLOCK_MS = 2_000;

interface Writer {
  askId: string;
  /** Entries written so far: the next entry's stream id is `0-(n+1)`. */
  n: number;
  renewedAt: number;
}

/**
 * Answers shared by every instance: `answer:<user>` names the user's current ask, and `answer:<user>:<ask>` is a
 * Redis stream whose entry ids are `0-1`, `0-2`, … (the frame number), so "the frames after N" is one XREAD from
 * `0-N`. Stop requests travel on one pub/sub channel.
 */
export class RedisAnswerLog implements AnswerLog {
  private readonly writers = new Map<number, Writer>();
  private readonly stops = new StopListeners();
  private subscriber: Redis | null = null;
  private readonly followers = new Set<Redis>();

  /** Reports Redis failures, at most one every ERROR_REPORT_MS (an outage would otherwise log every frame). */
  private readonly onError: (err: unknown) => void;

  constructor(
    private readonly redis: Redis,
    private readonly prefix: string,
    onError: (err: unknown) => void,
  ) {
    let lastReport = 0;
    this.onError = (err) => {
      const now = Date.now();
      if (now - lastReport < ERROR_REPORT_MS) return;
      lastReport = now;
      onError(err);
    };
    // Subscribed from the start, so that a stop asked right after an answer begins is not missed.
    this.subscribe();
  }

  private currentKey(userId: number): string {
    return `${this.prefix}answer:${userId}`;
  }

  private streamKey(userId: number, askId: string): string {
    return `${this.prefix}answer:${userId}:${askId}`;
  }

  private get channel(): string {
    return `${this.prefix}answer-stop`;
  }

  async begin(userId: number, askId: string): Promise<void> {
    this.writers.set(userId, { askId, n: 0, renewedAt: Date.now() });
    // An id seen before (a question a draining instance handed back, asked again) starts a new stream.
    await this.redis
      .multi()
      .del(this.streamKey(userId, askId))
      .set(this.currentKey(userId), askId, 'EX', STREAMING_TTL_SECONDS)
      .exec();
  }

  append(userId: number, askId: string, frame: string): void {
    this.write(userId, askId, 'f', frame);
  }

  private write(userId: number, askId: string, field: 'f' | 'e', value: string, ttlSeconds?: number): void {
    const w = this.writers.get(userId);
    if (w?.askId !== askId) return;
    w.n += 1;
    const key = this.streamKey(userId, askId);
    const now = Date.now();
    const multi = this.redis.multi().xadd(key, `0-${w.n}`, field, value);
    if (ttlSeconds !== undefined || w.n === 1 || now - w.renewedAt >= RENEW_EVERY_MS) {
      w.renewedAt = now;
      const ttl = ttlSeconds ?? STREAMING_TTL_SECONDS;
      multi.expire(key, ttl).expire(this.currentKey(userId), ttl);
    }
    multi.exec().catch(this.onError);
  }

  end(userId: number, askId: string, end: AnswerEnd): Promise<void> {
    this.write(userId, askId, 'e', JSON.stringify(end), Math.ceil(ANSWER_RETAIN_MS / 1000));
    if (this.writers.get(userId)?.askId !== askId) return Promise.resolve();
    this.writers.delete(userId);
    // No longer the user's answer in flight; its frames stay resumable by id until they expire.
    return this.redis
      .eval(DELETE_IF_EQUAL, 1, this.currentKey(userId), askId)
      .then(() => undefined)
      .catch(this.onError);
  }

  async follow(
    userId: number,
    askId: string | null,
    after: number,
    signal: AbortSignal,
  ): Promise<FollowedAnswer | null> {
    const current = await this.redis.get(this.currentKey(userId));
    const id = askId ?? current;
    if (!id) return null;
    if (id !== current && (await this.redis.exists(this.streamKey(userId, id))) === 0) return null;
    // `answer:<user>` names the answer from its start until its end; after that only its id finds it.
    return { askId: id, entries: this.entries(userId, id, after, signal) };
  }

  private async *entries(
    userId: number,
    askId: string,
    after: number,
    signal: AbortSignal,
  ): AsyncGenerator<AnswerEntry> {
    const key = this.streamKey(userId, askId);
    // A blocking read holds its connection: each follower gets its own, closed when it stops.
    // Its blocked read waits longer than an ordinary command may.
    // Its commands wait for its connection (it is new), not the others'.
    const reader = this.redis.duplicate({
      commandTimeout: READ_BLOCK_MS + REDIS_COMMAND_TIMEOUT_MS,
      enableOfflineQueue: true,
    });
    reader.on('error', this.onError);
    this.followers.add(reader);
    const stop = () => reader.disconnect();
    signal.addEventListener('abort', stop, { once: true });
    let last = Math.max(0, after);
    try {
      while (!signal.aborted) {
        const res = await reader.xread('COUNT', 1000, 'BLOCK', READ_BLOCK_MS, 'STREAMS', key, `0-${last}`);
        const entries = res?.[0]?.[1] ?? [];
        if (entries.length === 0) {
          const alive =
            (await this.redis.exists(key)) > 0 || (await this.redis.get(this.currentKey(userId))) === askId;
          if (!alive) return;
          continue;
        }
        for (const [id, fields] of entries) {
          last = Number(id.slice(2));
          const [field, value] = fields as [string, string];
          if (field === 'e') {
            yield { end: JSON.parse(value) as AnswerEnd };
            return;
          }
          yield { frame: value };
        }
      }
    } catch (e) {
      if (!signal.aborted) throw e;
    } finally {
      signal.removeEventListener('abort', stop);
      this.followers.delete(reader);
      reader.disconnect();
    }
  }

  async requestStop(userId: number, askId: string | null, reason: StopReason): Promise<void> {
    await this.redis.publish(this.channel, JSON.stringify({ userId, askId, reason }));
  }

  onStop(userId: number, askId: string, listener: (reason: StopReason) => void): () => void {
    this.subscribe();
    return this.stops.on(userId, askId, listener);
  }

  private subscribe(): void {
    if (this.subscriber) return;
    // Subscribes before it is connected, and again by itself after each reconnection.
    const sub = this.redis.duplicate({ enableOfflineQueue: true });
    this.subscriber = sub;
    sub.on('error', this.onError);
    sub.on('message', (_channel: string, message: string) => {
      try {
        this.stops.emit(JSON.parse(message) as { userId: number; askId: string | null; reason: StopReason });
      } catch (err) {
        this.onError(err);
      }
    });
    sub.subscribe(this.channel).catch(this.onError);
  }

  async close(): Promise<void> {
    for (const r of this.followers) r.disconnect();
    this.followers.clear();
    if (this.subscriber) await this.subscriber.quit().catch(() => this.subscriber?.disconnect());
    this.subscriber = null;
  }
}
