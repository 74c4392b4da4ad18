import type { ReadinessCheck, ReadinessStatus } from '@cc/contracts';
import type { AppContext } from '../app-context';
import { fail } from '../errors/app-error';

async function probe(check: () => Promise<void>): Promise<ReadinessCheck> {
  try {
    await check();
    return 'ok';
  } catch {
    return 'failed';
  }
}

/**
 * Readiness of this instance: the database answers, Redis answers (when configured), and the process is not
 * draining. Throws `notReady` (503) carrying the status when any check fails, so the failed one is named.
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
  if (!ready) {
    ctx.log.warn({ checks: status.checks }, 'not ready');
    throw fail.notReady(status);
  }
  return status;
}
