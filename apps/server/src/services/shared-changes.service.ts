import type { AppContext } from '../app-context';
import type { SharedChange } from '../coordination/changes';

/**
 * Tells the other instances that a shared setting changed (after it is saved). Never fails the change: when Redis
 * cannot take the message, the warning is logged and the periodic refresh brings the others up to date.
 */
export function announceChange(ctx: AppContext, change: SharedChange): void {
  ctx.coordination.changes.publish(change).catch((err: unknown) => {
    ctx.log.warn({ err, change }, 'A settings change was not announced to the other instances');
  });
}
