import { TIPS } from '@cc/contracts';
import type { ChatSource } from '@cc/contracts';
import type { AppContext } from '../app-context';
import { UpstreamError, UpstreamNetworkError, UpstreamTimeout } from '../sources/errors';
import type { AnswerSink } from './frames';
import type { Lease } from '../coordination/queue';
import { ServerDrainingError, coordinationCall } from '../errors/queue-errors';

/** What the queue step needs to know about one ask. */
export interface QueueRequest {
  userId: number;
  source: ChatSource;
  /** The server the conversation lives on (web conversations are sticky), if any. */
  preferServerId: number | null;
  sink: AnswerSink;
  signal: AbortSignal;
}

/**
 * Waits for a free slot on a server of the source, telling the client its position while it waits. Throws
 * QueueTimeoutError after the source's queue timeout, NoServerError when no server is online, AbortError when the
 * ask is stopped.
 */
export async function waitForServer(
  ctx: AppContext,
  req: QueueRequest,
  excludeKeys: string[] = [],
): Promise<Lease> {
  const { source, sink } = req;
  await showStatus(ctx, req.userId, 'queueing');
  // Redis failing here (the shared queue) refuses the ask as temporarily unavailable, within seconds.
  const busy = await coordinationCall(() => ctx.scheduler.isBusy(source));
  if (busy) {
    // The exact position follows as soon as the ask is in the queue.
    const position = (await coordinationCall(() => ctx.scheduler.snapshot(source))).waiting + 1;
    sink.send({ type: 'queueing', tip: TIPS.queueing, position });
  }
  const lease = await coordinationCall(() =>
    ctx.scheduler.acquire({
      source,
      preferKey: req.preferServerId !== null ? `db:${req.preferServerId}` : null,
      excludeKeys,
      signal: req.signal,
      timeoutMs: ctx.runtime.current()[source].queue_timeout * 1000,
      onPosition: (position) => sink.send({ type: 'queueing', tip: TIPS.queueing, position }),
    }),
  );
  ctx.metrics.queueWaited(source, lease.queuedSeconds);
  await showStatus(ctx, req.userId, 'asking');
  return lease;
}

/**
 * An ask's first wait for a slot. Once the instance drains, an ask without a slot yet leaves the queue with
 * ServerDrainingError: its client asks again elsewhere, instead of it starting here to be cut off at the drain's limit.
 */
export async function waitForFirstServer(ctx: AppContext, req: QueueRequest): Promise<Lease> {
  if (ctx.lifecycle.draining) throw new ServerDrainingError();
  const drain = new AbortController();
  const undrain = ctx.lifecycle.onDrain(() => drain.abort());
  try {
    return await waitForServer(ctx, { ...req, signal: AbortSignal.any([req.signal, drain.signal]) });
  } catch (e) {
    if (drain.signal.aborted && !req.signal.aborted) throw new ServerDrainingError();
    throw e;
  } finally {
    undrain();
  }
}

/** The status others see (admin, /me); a failure to show it does not fail the ask. */
async function showStatus(ctx: AppContext, userId: number, status: 'queueing' | 'asking'): Promise<void> {
  await ctx.coordination.chatStatus
    .set(userId, status)
    .catch((err: unknown) => ctx.log.warn({ err }, 'showing the chat status failed'));
}

/** Failures that say nothing about the question itself: another server may answer it. */
export function canFailOver(e: unknown): boolean {
  if (e instanceof UpstreamNetworkError || e instanceof UpstreamTimeout) return true;
  return e instanceof UpstreamError && e.status !== null && (e.status >= 500 || e.status === 429);
}

/**
 * Runs `attempt` on the leased server; while the upstream has sent nothing yet and another server of the source
 * is left, a failure that may be the server's moves the ask to the next one. `current()` is the lease in use.
 */
export async function withFailover(
  ctx: AppContext,
  req: QueueRequest,
  first: Lease,
  attempt: (lease: Lease) => Promise<void>,
  canRetry: () => boolean,
  onLease: (lease: Lease | null) => void,
): Promise<void> {
  const tried: string[] = [];
  let lease = first;
  for (;;) {
    try {
      await attempt(lease);
      return;
    } catch (e) {
      ctx.metrics.upstreamFailed(req.source, e);
      tried.push(lease.server.key);
      const others = ctx.upstream.servers(req.source).some((s) => !tried.includes(s.key));
      if (!canRetry() || !others || !canFailOver(e)) throw e;
      ctx.log.warn(
        { err: e, server: lease.server.key },
        'upstream failed before the first token, failing over',
      );
      lease.release();
      onLease(null);
      lease = await waitForServer(ctx, req, tried);
      onLease(lease);
    }
  }
}
