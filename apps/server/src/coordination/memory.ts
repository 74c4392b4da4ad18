import { MemoryAnswerLog } from './answer-log';
import { MemoryChangeChannel } from './changes';
import type { ChatStatusRegistry, Coordination, Counter, LiveChatStatus } from './types';

/** Epoch milliseconds now. */
export type Clock = () => number;

/** Fixed-window counters in this process. */
export class MemoryCounter implements Counter {
  private readonly entries = new Map<string, { count: number; expiresAt: number }>();

  constructor(private readonly now: Clock = () => Date.now()) {}

  hit(key: string, windowSeconds: number): Promise<number> {
    const now = this.now();
    const e = this.entries.get(key);
    if (!e || e.expiresAt <= now) {
      this.entries.set(key, { count: 1, expiresAt: now + windowSeconds * 1000 });
      this.sweep(now);
      return Promise.resolve(1);
    }
    e.count += 1;
    return Promise.resolve(e.count);
  }

  decrement(key: string): Promise<void> {
    const e = this.entries.get(key);
    if (e && e.expiresAt > this.now() && e.count > 0) e.count -= 1;
    return Promise.resolve();
  }

  peek(key: string): Promise<number> {
    const e = this.entries.get(key);
    return Promise.resolve(!e || e.expiresAt <= this.now() ? 0 : e.count);
  }

  reset(key: string): Promise<void> {
    this.entries.delete(key);
    return Promise.resolve();
  }

  /** Drops expired keys now and then so the map cannot grow without bound. */
  private sweep(now: number): void {
    if (this.entries.size < 10_000) return;
    for (const [k, e] of this.entries) if (e.expiresAt <= now) this.entries.delete(k);
  }
}

/** Chat statuses of this process, with lease expiry. */
export class MemoryChatStatus implements ChatStatusRegistry {
  private readonly entries = new Map<number, { status: LiveChatStatus; expiresAt: number }>();

  constructor(private readonly now: Clock = () => Date.now()) {}

  private live(userId: number) {
    const e = this.entries.get(userId);
    if (e && e.expiresAt <= this.now()) {
      this.entries.delete(userId);
      return undefined;
    }
    return e;
  }

  tryAcquire(userId: number, leaseSeconds: number): Promise<boolean> {
    if (this.live(userId)) return Promise.resolve(false);
    this.entries.set(userId, { status: 'queueing', expiresAt: this.now() + leaseSeconds * 1000 });
    return Promise.resolve(true);
  }

  set(userId: number, status: LiveChatStatus): Promise<void> {
    const e = this.live(userId);
    if (e) e.status = status;
    return Promise.resolve();
  }

  renew(userId: number, leaseSeconds: number): Promise<void> {
    const e = this.live(userId);
    if (e) e.expiresAt = this.now() + leaseSeconds * 1000;
    return Promise.resolve();
  }

  release(userId: number): Promise<void> {
    this.entries.delete(userId);
    return Promise.resolve();
  }

  get(userId: number): Promise<LiveChatStatus | null> {
    return Promise.resolve(this.live(userId)?.status ?? null);
  }

  all(): Promise<Map<number, LiveChatStatus>> {
    const out = new Map<number, LiveChatStatus>();
    for (const id of [...this.entries.keys()]) {
      const e = this.live(id);
      if (e) out.set(id, e.status);
    }
    return Promise.resolve(out);
  }
}

export interface MemoryCoordinationOptions {
  /** Clock of the counter windows and chat-status leases (default Date.now; tests pass a fake one). */
  now?: Clock;
}

export function memoryCoordination(options: MemoryCoordinationOptions = {}): Coordination {
  const answers = new MemoryAnswerLog();
  return {
    counter: new MemoryCounter(options.now),
    chatStatus: new MemoryChatStatus(options.now),
    answers,
    changes: new MemoryChangeChannel(),
    close: () => answers.close(),
  };
}
