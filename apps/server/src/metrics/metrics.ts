import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import { MODELS_BY_SOURCE, SOURCES } from '@cc/contracts';
import type { ChatSource } from '@cc/contracts';
import { UpstreamError, UpstreamNetworkError, UpstreamTimeout } from '../sources/errors';

/**
 * How an ask ended, as counted: the ask log's outcomes, plus `refused` for an ask a check stopped before any
 * charge (quota, model, conversation).
 */
export type AskOutcome = 'success' | 'canceled' | 'error' | 'timeout' | 'interrupted' | 'refused';

/** One ask that ended, in plain values (the pipeline computes them; this module keeps no rule of its own). */
export interface EndedAskSample {
  source: ChatSource;
  model: string;
  outcome: AskOutcome;
  /** From the upstream request to the end; null when the ask never left the queue. */
  answerSeconds: number | null;
  /** From the upstream request to the first answer content; null when none came. */
  firstTokenSeconds: number | null;
}

/** What the metrics read at scrape time from the rest of the process. */
export interface MetricsSources {
  /** Asks waiting in the queue of a source (with Redis: every instance's). */
  queueWaiting(source: ChatSource): Promise<number>;
}

const SECOND_BUCKETS_SHORT = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];
const FIRST_TOKEN_BUCKETS = [0.1, 0.25, 0.5, 1, 2, 3, 5, 8, 13, 20, 30, 60];
const LONG_BUCKETS = [0.1, 0.5, 1, 2, 5, 10, 30, 60, 120, 300, 600];

/** A label value from a bounded set: a model outside the known ones (the request carries any string) is `other`. */
function modelLabel(source: ChatSource, model: string): string {
  return (MODELS_BY_SOURCE[source] as readonly string[]).includes(model) ? model : 'other';
}

/** `status` of an upstream failure: the HTTP status, `stream` (an error inside the stream), `timeout`, `network`. */
function upstreamStatus(e: unknown): string | null {
  if (e instanceof UpstreamError) return e.status === null ? 'stream' : String(e.status);
  if (e instanceof UpstreamTimeout) return 'timeout';
  if (e instanceof UpstreamNetworkError) return 'network';
  return null;
}

/**
 * The metrics of one app instance, in a registry of its own (never the library's global one, so that several apps
 * in one process, as in the tests, keep separate counts). The process metrics live in one registry per process.
 */
export function createMetrics(sources: MetricsSources) {
  const registry = new Registry();
  const registers = [registry];
  const asks = new Counter({
    name: 'cc_asks_total',
    help: 'Asks that ended, by source, model and outcome (success, canceled, error, timeout, refused)',
    labelNames: ['source', 'model', 'outcome'] as const,
    registers,
  });
  const answerDuration = new Histogram({
    name: 'cc_answer_duration_seconds',
    help: 'From the upstream request to the end of the answer, by source, model and outcome',
    labelNames: ['source', 'model', 'outcome'] as const,
    buckets: LONG_BUCKETS,
    registers,
  });
  const firstToken = new Histogram({
    name: 'cc_time_to_first_token_seconds',
    help: 'From the upstream request to the first answer content, by source and model',
    labelNames: ['source', 'model'] as const,
    buckets: FIRST_TOKEN_BUCKETS,
    registers,
  });
  const admission = new Histogram({
    name: 'cc_ask_admission_seconds',
    help:
      'Before an ask goes upstream, by source and step: turn (from its arrival to the start of its admission; asks ' +
      'are admitted one at a time) and checks (its checks, charge and records, for asks admitted)',
    labelNames: ['source', 'step'] as const,
    buckets: SECOND_BUCKETS_SHORT,
    registers,
  });
  const queueWait = new Histogram({
    name: 'cc_queue_wait_seconds',
    help: 'Time an ask waited for an upstream slot (asks that got one), by source',
    labelNames: ['source'] as const,
    buckets: LONG_BUCKETS,
    registers,
  });
  new Gauge({
    name: 'cc_queue_length',
    help: 'Asks waiting for an upstream slot now, by source (with Redis: all instances)',
    labelNames: ['source'] as const,
    registers,
    async collect() {
      for (const source of SOURCES) {
        // A queue that cannot be read (Redis down) is left out of this scrape rather than failing it.
        const waiting = await sources.queueWaiting(source).catch(() => null);
        if (waiting === null) this.remove({ source });
        else this.set({ source }, waiting);
      }
    },
  });
  const upstreamErrors = new Counter({
    name: 'cc_upstream_errors_total',
    help: 'Failed upstream attempts (failovers included), by source and status (HTTP status, stream, timeout, network)',
    labelNames: ['source', 'status'] as const,
    registers,
  });
  const streaming = new Gauge({
    name: 'cc_answers_streaming',
    help: 'Answers streaming from the upstream on this instance now, by source',
    labelNames: ['source'] as const,
    registers,
  });
  const sockets = new Gauge({
    name: 'cc_websockets_open',
    help: 'Websockets (the chat socket) open on this instance now',
    registers,
  });
  const httpDuration = new Histogram({
    name: 'cc_http_request_duration_seconds',
    help: 'HTTP request duration by method, route pattern and status code',
    labelNames: ['method', 'route', 'status_code'] as const,
    buckets: SECOND_BUCKETS_SHORT,
    registers,
  });
  for (const source of SOURCES) streaming.set({ source }, 0);
  sockets.set(0);

  return {
    registry,
    /** Counts an ask that ended (every ask the pipeline admitted or refused). */
    askEnded(sample: EndedAskSample): void {
      const model = modelLabel(sample.source, sample.model);
      asks.inc({ source: sample.source, model, outcome: sample.outcome });
      if (sample.answerSeconds !== null)
        answerDuration.observe(
          { source: sample.source, model, outcome: sample.outcome },
          sample.answerSeconds,
        );
      if (sample.firstTokenSeconds !== null)
        firstToken.observe({ source: sample.source, model }, sample.firstTokenSeconds);
    },
    /** A step of an ask's admission took this long (see `cc_ask_admission_seconds`). */
    admissionStep(source: ChatSource, step: 'turn' | 'checks', seconds: number): void {
      admission.observe({ source, step }, seconds);
    },
    queueWaited(source: ChatSource, seconds: number): void {
      queueWait.observe({ source }, seconds);
    },
    /** Counts a failed upstream attempt; other failures (database, a stop) are not the upstream's. */
    upstreamFailed(source: ChatSource, e: unknown): void {
      const status = upstreamStatus(e);
      if (status) upstreamErrors.inc({ source, status });
    },
    /** An answer starts streaming; the returned function ends it (once). */
    streamStarted(source: ChatSource): () => void {
      streaming.inc({ source });
      let ended = false;
      return () => {
        if (ended) return;
        ended = true;
        streaming.dec({ source });
      };
    },
    socketOpened(): void {
      sockets.inc();
    },
    socketClosed(): void {
      sockets.dec();
    },
    httpRequest(method: string, route: string, statusCode: number, seconds: number): void {
      httpDuration.observe({ method, route, status_code: String(statusCode) }, seconds);
    },
  };
}
export type Metrics = ReturnType<typeof createMetrics>;

let processRegistry: Registry | null = null;

/**
 * The process's own metrics (CPU, memory, event loop, GC, handles), one registry per process: they describe the
 * process, not an app, and collecting them starts monitors that a second registry would only duplicate.
 */
function processMetrics(): Registry {
  if (!processRegistry) {
    processRegistry = new Registry();
    collectDefaultMetrics({ register: processRegistry });
  }
  return processRegistry;
}

/** The Prometheus text exposition of an app's metrics and the process's. */
export async function renderMetrics(metrics: Metrics): Promise<{ contentType: string; body: string }> {
  const [own, proc] = await Promise.all([metrics.registry.metrics(), processMetrics().metrics()]);
  return { contentType: metrics.registry.contentType, body: `${own}\n${proc}` };
}
