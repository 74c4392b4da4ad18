import { TIPS } from '@cc/contracts';
import type { Envelope } from '@cc/contracts';

/** Success envelope. */
export function ok<T>(result: T, code = 200): Envelope<T> {
  return { code, message: TIPS.requestSuccess, result };
}
