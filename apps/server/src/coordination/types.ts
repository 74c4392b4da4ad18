import type { Redis } from 'ioredis';
import type { AnswerLog } from './answer-log';
import type { ChangeChannel } from './changes';

/**
 * Shared state between requests (and, with Redis, between instances). In-process implementations are the
 * default; `redis.ts` provides the same contracts for scale-out.
 */
export interface Counter {
  /** Adds one to `key` and returns the count inside the current window of `windowSeconds`. */
  hit(key: string, windowSeconds: number): Promise<number>;
  /** Takes back one hit of the current window (a reserved attempt that should not count); nothing once it expired. */
  decrement(key: string): Promise<void>;
  /** Current count inside the window (0 when expired). */
  peek(key: string): Promise<number>;
  reset(key: string): Promise<void>;
}

export type LiveChatStatus = 'queueing' | 'asking';

/**
 * Who is asking right now. One entry per user: holding it is the "one client per user" lock, and its value is
 * the user's chat status (absent = idling). Entries expire with their lease, so a crash cannot leave a user stuck.
 */
export interface ChatStatusRegistry {
  /** Takes the user's slot; false when the user already has an ask in progress. */
  tryAcquire(userId: number, leaseSeconds: number): Promise<boolean>;
  set(userId: number, status: LiveChatStatus): Promise<void>;
  /** Extends the lease of a long ask. */
  renew(userId: number, leaseSeconds: number): Promise<void>;
  release(userId: number): Promise<void>;
  get(userId: number): Promise<LiveChatStatus | null>;
  all(): Promise<Map<number, LiveChatStatus>>;
}

export interface Coordination {
  counter: Counter;
  chatStatus: ChatStatusRegistry;
  /** Frames of the answers in flight, for clients that reconnect; stop requests from any tab or instance. */
  answers: AnswerLog;
  /** Tells the other instances that a shared setting changed, and hears them (no-op in one process). */
  changes: ChangeChannel;
  /**
   * With Redis: the shared store for HTTP rate limits (and the key prefix to use), so every instance counts together.
   */
  rateLimitStore?: { redis: Redis; nameSpace: string };
  /** With Redis: resolves once connected (or after a few seconds: Redis down at boot does not stop the boot). */
  ready?: () => Promise<void>;
  /** With Redis: one PING, rejected when Redis does not answer within a second (readiness). */
  ping?: () => Promise<void>;
  close(): Promise<void>;
}
