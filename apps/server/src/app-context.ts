import type { FastifyBaseLogger } from 'fastify';
import type { AppConfig } from './config/bootstrap';
import type { RuntimeSettings } from './config/runtime-settings';
import type { Secrets } from './config/secrets';
import type { Coordination } from './coordination/types';
import type { DbHandle } from './db/client';
import type { Metrics } from './metrics/metrics';
import type { QueueScheduler } from './coordination/queue';
import type { SecretBox } from './services/secret-box';
import type { AdapterRegistry } from './sources/registry';
import type { TaskRunner } from './tasks/runner';
import type { DemoUpstream, UpstreamDirectory } from './services/upstream.service';
import type { RunningAsks } from './chat/running-asks';
import type { AnswerWriter } from './chat/answer-writer';
import type { ActivityWriter } from './services/activity-writer';
import type { StartQueue } from './chat/turns';

/** Where this process is in its life: serving, or draining after SIGTERM (readiness turns 503). */
export interface Lifecycle {
  readonly draining: boolean;
  /**
   * Marks the instance as stopping: `/api/readyz` answers 503 so the load balancer sends no new traffic, and the
   * chat socket takes no new asks or resumes.
   */
  beginDrain(): void;
  /** Answers running on this instance: each registers its stop, called with 'shutdown' when the drain ends. */
  track(stop: () => void): () => void;
  /** Calls `listener` when the drain begins (open resumes are closed then); returns the unsubscribe. */
  onDrain(listener: () => void): () => void;
  /** How many answers run here. */
  readonly running: number;
  /** Resolves once no answer runs here, or after `ms` (then stops the rest as cut-off answers first). */
  settle(ms: number): Promise<void>;
}

/** Everything a service needs, built once at boot (or per test). No HTTP objects here. */
export interface AppContext {
  config: AppConfig;
  runtime: RuntimeSettings;
  dbHandle: DbHandle;
  secrets: Secrets;
  secretBox: SecretBox;
  coordination: Coordination;
  log: FastifyBaseLogger;
  /** Where asks go (servers, credentials). */
  upstream: UpstreamDirectory;
  /** The adapter of each source (the ask pipeline never branches on the source name). */
  adapters: AdapterRegistry;
  /** The queue in front of the upstream servers. */
  scheduler: QueueScheduler;
  /** Prometheus metrics of this app instance (its own registry), served at /metrics. */
  metrics: Metrics;
  /** The in-process emulator when no upstream is configured (demo mode). */
  demo: DemoUpstream | null;
  /** When this process started (ISO). */
  startupTime: string;
  /** Background tasks (scheduled only when the context was created with `tasks`; runnable on demand always). */
  tasks: TaskRunner<AppContext>;
  /** Running or draining (set by main.ts on SIGTERM). */
  lifecycle: Lifecycle;
  /** This process among the instances (random at each start). */
  instanceId: string;
  /** The charged asks this instance runs, recorded with a heartbeat for the other instances. */
  running: RunningAsks;
  /** Writes the answers streaming here together, once a second (at most 250 of them a second). */
  answers: AnswerWriter;
  /** Writes users' activity marks together, within a second (readers that show them flush it first). */
  activity: ActivityWriter;
  /** Admits the asks arriving here one at a time, in arrival order. */
  starts: StartQueue;
}
