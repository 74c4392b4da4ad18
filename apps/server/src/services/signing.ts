import { createHmac, timingSafeEqual } from 'node:crypto';
import type { AppContext } from '../app-context';

/**
 * An HMAC-SHA256 of `body` under the session key, for one purpose: the purpose is part of what is signed, so a
 * value signed for one use (the sign-in state, a trusted device) never passes for another.
 */
export function signFor(
  ctx: Pick<AppContext, 'secrets'>,
  purpose: string,
  body: string,
  key = ctx.secrets.sessionKey,
): string {
  return createHmac('sha256', key).update(`${purpose}.${body}`).digest('base64url');
}

/** Whether `mac` signs `body` for `purpose` under the current session key or one being rotated out. */
export function signedFor(
  ctx: Pick<AppContext, 'secrets'>,
  purpose: string,
  body: string,
  mac: string,
): boolean {
  const given = Buffer.from(mac);
  return [ctx.secrets.sessionKey, ...ctx.secrets.previousSessionKeys].some((key) => {
    const expected = Buffer.from(signFor(ctx, purpose, body, key));
    return expected.length === given.length && timingSafeEqual(expected, given);
  });
}
