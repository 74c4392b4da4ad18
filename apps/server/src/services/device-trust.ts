import { randomBytes } from 'node:crypto';
import type { AppContext } from '../app-context';
import { signFor, signedFor } from './signing';

/**
 * A browser an account has logged in on before is trusted for that account: it holds a device cookie, and its
 * failed logins count against that device alone, not against the account. So someone guessing a user's password
 * elsewhere locks the account for every other client, but not for the user's own browser (OWASP's "device cookies").
 */
export const DEVICE_COOKIE = 'cc_device';
/** Sent only to the login route. */
export const DEVICE_COOKIE_PATH = '/api/auth/login';
export const DEVICE_COOKIE_MAX_AGE_S = 365 * 24 * 60 * 60;
/** Accounts one browser is trusted for (people sharing a computer), the most recent logins kept. */
const ACCOUNTS_PER_DEVICE = 5;
const PURPOSE = 'device';

interface Entry {
  nonce: string;
  mac: string;
}

/** A cookie's entries (`nonce.mac`, joined by `~`, the most recent first); anything malformed is left out. */
function entriesOf(cookie: string | undefined): Entry[] {
  if (!cookie || cookie.length > 1024) return [];
  return cookie
    .split('~')
    .map((part) => part.split('.'))
    .filter(
      (pair): pair is [string, string] => pair.length === 2 && pair.every((s) => /^[\w-]{16,64}$/.test(s)),
    )
    .map(([nonce, mac]) => ({ nonce, mac }))
    .slice(0, ACCOUNTS_PER_DEVICE);
}

/** What an entry signs: the account (as logins find it, case-insensitively) and the entry's own random id. */
const signedBody = (username: string, nonce: string) => `${username.toLowerCase()}.${nonce}`;

const trusts = (ctx: Pick<AppContext, 'secrets'>, entry: Entry, username: string) =>
  signedFor(ctx, PURPOSE, signedBody(username, entry.nonce), entry.mac);

/**
 * The id of this browser for `username` when its device cookie proves an earlier login of that account on it (under
 * the current session key or one being rotated out); null when it does not.
 */
export function trustedDevice(
  ctx: Pick<AppContext, 'secrets'>,
  cookie: string | undefined,
  username: string,
): string | null {
  return entriesOf(cookie).find((entry) => trusts(ctx, entry, username))?.nonce ?? null;
}

/** The device cookie after `username` logged in: a new entry for the account first, then the other accounts'. */
export function deviceCookieAfterLogin(
  ctx: Pick<AppContext, 'secrets'>,
  cookie: string | undefined,
  username: string,
): string {
  const nonce = randomBytes(16).toString('base64url');
  const others = entriesOf(cookie).filter((entry) => !trusts(ctx, entry, username));
  return [{ nonce, mac: signFor(ctx, PURPOSE, signedBody(username, nonce)) }, ...others]
    .slice(0, ACCOUNTS_PER_DEVICE)
    .map((entry) => `${entry.nonce}.${entry.mac}`)
    .join('~');
}
