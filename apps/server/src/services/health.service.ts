import type { ReadinessCheck, ReadinessStatus } from '@cc/contracts';
import type { AppContext } from '../app-context';
import { fail } from '../errors/app-error';

/**
 * How long a readiness check may take: a database (or Redis) that accepts the connection but does not answer is not
 * ready, and the probe says so instead of hanging until the prober gives up.
 */
export const READINESS_TIMEOUT_MS = 2000;

async function probe(check: () => Promise<void>): Promise<ReadinessCheck> {
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error('no answer in time')), READINESS_TIMEOUT_MS);
  });
  try {
    await Promise.race([check(), timedOut]);
    return 'ok';
  } catch {
    return 'failed';
  } finally {
    clearTimeout(timer);
  }
}

/** Whether each instance's last readiness answer was ready: only a change is logged, not every probe. */
const lastReady = new WeakMap<AppContext, boolean>();

/**
 * Readiness of this instance: the database answers, Redis answers (when configured), and the process is not
 * draining. Throws `notReady` (503) carrying the status when any check fails, so the failed one is named. Probes are
 * not logged; the instance turning not ready (with the failed checks) and ready again are.
 */
export async function checkReadiness(ctx: AppContext): Promise<ReadinessStatus> {
  const ping = ctx.coordination.ping;
  const [database, redis] = await Promise.all([
    probe(() => ctx.dbHandle.ping()),
    ping ? probe(ping) : Promise.resolve('not_configured' as const),
  ]);
  const lifecycle = ctx.lifecycle.draining ? 'draining' : 'running';
  const ready = database === 'ok' && redis !== 'failed' && lifecycle === 'running';
  const status: ReadinessStatus = { ready, checks: { database, redis, lifecycle } };
  const was = lastReady.get(ctx);
  lastReady.set(ctx, ready);
  if (!ready) {
    if (was !== false) ctx.log.warn({ checks: status.checks }, 'not ready');
    throw fail.notReady(status);
  }
  if (was === false) ctx.log.info({ checks: status.checks }, 'ready again');
  return status;
}
