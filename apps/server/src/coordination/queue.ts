/**
 * The queue in front of the upstream servers, as the ask pipeline and the admin views use it: in-process
 * (`chat/scheduler.ts`) or shared by every instance through Redis (`redis-scheduler.ts`).
 */

export interface ServerSlot {
  /** Stable key: `db:<id>` for servers rows, `default:<source>` for the configured base URL. */
  key: string;
  /** servers.id, or null for the configured base URL. */
  id: number | null;
  baseUrl: string;
  capacity: number;
  weight: number;
}

export interface Lease {
  server: ServerSlot;
  /** Seconds spent queueing. */
  queuedSeconds: number;
  release(): void;
}

export interface AcquireRequest {
  source: string;
  /** Prefer this server (sticky conversation); another one is used when it is not available. */
  preferKey?: string | null;
  /** Servers that already failed for this ask (failover). */
  excludeKeys?: string[];
  signal: AbortSignal;
  timeoutMs: number;
  /** Called with the 1-based position whenever it changes while waiting. */
  onPosition?: (position: number) => void;
}

/** What the ask pipeline and the admin views need from a scheduler (in-process or Redis-backed). */
export interface QueueScheduler {
  acquire(req: AcquireRequest): Promise<Lease>;
  /** In-flight asks per server key, the queue length and total capacity of a source. */
  snapshot(source: string): Promise<{ inFlight: Record<string, number>; waiting: number; capacity: number }>;
  /** True when every slot of the source is taken. */
  isBusy(source: string): Promise<boolean>;
  /** Resolves once the shared queue is reachable (or after a few seconds); in-process: at once. */
  ready?: () => Promise<void>;
  close(): Promise<void>;
}
