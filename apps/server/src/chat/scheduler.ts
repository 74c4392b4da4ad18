/**
 * The queue in front of the upstream: per source, a FIFO of waiting asks and a set of servers, each with a
 * concurrency limit. A freed slot goes to the first waiter that may use that server (web conversations prefer the
 * server they live on). Waiters learn their position, give up on timeout, and leave the queue when the client
 * does. In-process; several instances share one upstream account through Redis leases (coordination/).
 */
import type { AcquireRequest, Lease, QueueScheduler, ServerSlot } from '../coordination/queue';
import { NoServerError, QueueTimeoutError } from '../errors/queue-errors';

interface Waiter {
  req: AcquireRequest;
  enqueuedAt: number;
  lastPosition: number;
  resolve(lease: Lease): void;
  reject(e: Error): void;
  cleanup(): void;
}

export class Scheduler implements QueueScheduler {
  private readonly waiters = new Map<string, Waiter[]>();
  private readonly inFlight = new Map<string, number>();

  /** `servers(source)` returns the online servers of a source now. */
  constructor(private readonly servers: (source: string) => ServerSlot[]) {}

  acquire(req: AcquireRequest): Promise<Lease> {
    if (req.signal.aborted) return Promise.reject(new DOMException('aborted', 'AbortError'));
    const candidates = this.candidates(req);
    if (candidates.length === 0) return Promise.reject(new NoServerError(req.source));
    return new Promise<Lease>((resolve, reject) => {
      const queue = this.queueOf(req.source);
      const onAbort = () => this.remove(req.source, waiter, new DOMException('aborted', 'AbortError'));
      const timer = setTimeout(() => this.remove(req.source, waiter, new QueueTimeoutError()), req.timeoutMs);
      const waiter: Waiter = {
        req,
        enqueuedAt: Date.now(),
        lastPosition: 0,
        resolve,
        reject,
        cleanup: () => {
          clearTimeout(timer);
          req.signal.removeEventListener('abort', onAbort);
        },
      };
      req.signal.addEventListener('abort', onAbort, { once: true });
      queue.push(waiter);
      this.dispatch(req.source);
    });
  }

  /** In-flight asks per server key, and the queue length, of a source. */
  snapshot(source: string): Promise<{ inFlight: Record<string, number>; waiting: number; capacity: number }> {
    return Promise.resolve(this.snapshotNow(source));
  }

  private snapshotNow(source: string): {
    inFlight: Record<string, number>;
    waiting: number;
    capacity: number;
  } {
    const servers = this.servers(source);
    const inFlight: Record<string, number> = {};
    for (const s of servers) inFlight[s.key] = this.inFlight.get(s.key) ?? 0;
    return {
      inFlight,
      waiting: this.queueOf(source).length,
      capacity: servers.reduce((n, s) => n + s.capacity, 0),
    };
  }

  /** True when every slot of the source is taken. */
  isBusy(source: string): Promise<boolean> {
    const servers = this.servers(source);
    // No server at all is not "busy": asks fail at once with a clear error instead of queueing.
    return Promise.resolve(
      servers.length > 0 && servers.every((s) => (this.inFlight.get(s.key) ?? 0) >= s.capacity),
    );
  }

  close(): Promise<void> {
    return Promise.resolve();
  }

  private candidates(req: AcquireRequest): ServerSlot[] {
    return this.servers(req.source).filter((s) => !req.excludeKeys?.includes(s.key));
  }

  private queueOf(source: string): Waiter[] {
    let q = this.waiters.get(source);
    if (!q) {
      q = [];
      this.waiters.set(source, q);
    }
    return q;
  }

  private pick(req: AcquireRequest): ServerSlot | undefined {
    const free = this.candidates(req).filter((s) => (this.inFlight.get(s.key) ?? 0) < s.capacity);
    const preferred = free.find((s) => s.key === req.preferKey);
    if (preferred) return preferred;
    // Least loaded relative to weight.
    return free.sort(
      (a, b) => (this.inFlight.get(a.key) ?? 0) / a.weight - (this.inFlight.get(b.key) ?? 0) / b.weight,
    )[0];
  }

  private dispatch(source: string): void {
    const queue = this.queueOf(source);
    for (let i = 0; i < queue.length;) {
      const waiter = queue[i]!;
      if (this.candidates(waiter.req).length === 0) {
        queue.splice(i, 1);
        waiter.cleanup();
        waiter.reject(new NoServerError(source));
        continue;
      }
      const server = this.pick(waiter.req);
      if (!server) {
        i++;
        continue;
      }
      queue.splice(i, 1);
      waiter.cleanup();
      this.inFlight.set(server.key, (this.inFlight.get(server.key) ?? 0) + 1);
      let released = false;
      waiter.resolve({
        server,
        queuedSeconds: (Date.now() - waiter.enqueuedAt) / 1000,
        release: () => {
          if (released) return;
          released = true;
          this.inFlight.set(server.key, Math.max(0, (this.inFlight.get(server.key) ?? 1) - 1));
          this.dispatch(source);
        },
      });
    }
    queue.forEach((w, index) => {
      if (w.lastPosition !== index + 1) {
        w.lastPosition = index + 1;
        w.req.onPosition?.(index + 1);
      }
    });
  }

  private remove(source: string, waiter: Waiter, error: Error): void {
    const queue = this.queueOf(source);
    const i = queue.indexOf(waiter);
    if (i < 0) return;
    queue.splice(i, 1);
    waiter.cleanup();
    waiter.reject(error);
    this.dispatch(source);
  }
}
