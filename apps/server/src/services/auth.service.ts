import { createHmac, randomBytes } from 'node:crypto';
import type { AppContext } from '../app-context';
import type { SessionRow, UserRow } from '../db/schema';
import { fail } from '../errors/app-error';
import { nowIso } from '../repositories/executor';
import { sessionRepository } from '../repositories/session.repository';
import { userRepository } from '../repositories/user.repository';
import { verifyPassword } from './password';

/** Session digests are HMACs of the cookie token; the token itself is never stored. */
function digest(ctx: AppContext, token: string): string {
  return createHmac('sha256', ctx.secrets.sessionKey).update(token).digest('hex');
}

const ACTIVITY_WRITE_INTERVAL_MS = 60_000;

export interface LoginInput {
  username: string;
  password: string;
  /** Client address, for throttling and the session record. */
  ip: string;
  userAgent: string | undefined;
}

export interface LoginResult {
  /** Goes into the cookie, nowhere else. */
  token: string;
  user: UserRow;
  maxAgeSeconds: number;
}

function throttleKeys(input: LoginInput): [string, string] {
  return [`login:${input.ip}:${input.username.toLowerCase()}`, `login-ip:${input.ip}`];
}

/**
 * Checks credentials and opens a server-side session. Repeated failures per username+address (and, more
 * loosely, per address) are throttled with 429 before any password is checked.
 */
export async function login(ctx: AppContext, input: LoginInput): Promise<LoginResult> {
  const { auth } = ctx.config;
  const [pairKey, ipKey] = throttleKeys(input);
  const counter = ctx.coordination.counter;
  if (
    (await counter.peek(pairKey)) >= auth.login_max_failures ||
    (await counter.peek(ipKey)) >= auth.login_max_failures * 4
  ) {
    throw fail.tooManyRequests('errors.tooManyLoginAttempts');
  }
  const db = ctx.dbHandle.db;
  const user = await userRepository(db).findByUsername(input.username);
  const valid = await verifyPassword(user?.hashed_password ?? null, input.password);
  if (!user || !valid || user.is_active !== 1) {
    await counter.hit(pairKey, auth.login_failure_window_seconds);
    await counter.hit(ipKey, auth.login_failure_window_seconds);
    throw fail.badCredentials();
  }
  await counter.reset(pairKey);
  const token = randomBytes(32).toString('base64url');
  const now = new Date();
  await sessionRepository(db).insert({
    id: digest(ctx, token),
    user_id: user.id,
    created_at: now.toISOString(),
    expires_at: new Date(now.getTime() + auth.jwt_lifetime_seconds * 1000).toISOString(),
    last_seen_at: now.toISOString(),
    user_agent: input.userAgent?.slice(0, 512) ?? null,
    ip: input.ip.slice(0, 64),
  });
  return { token, user, maxAgeSeconds: auth.cookie_max_age };
}

export async function logout(ctx: AppContext, sessionId: string): Promise<void> {
  await sessionRepository(ctx.dbHandle.db).delete(sessionId);
}

export interface Authenticated {
  user: UserRow;
  session: SessionRow;
}

/**
 * Resolves a cookie token to its live session and active user, or null. Marks activity at most once a minute
 * (user's last_active_time and the session's last_seen_at).
 */
export async function authenticate(
  ctx: AppContext,
  token: string | undefined,
  options: { markActive: boolean } = { markActive: true },
): Promise<Authenticated | null> {
  if (!token || token.length > 200) return null;
  const db = ctx.dbHandle.db;
  const now = new Date();
  const nowStr = now.toISOString();
  const found = await sessionRepository(db).findLiveWithUser(digest(ctx, token), nowStr);
  if (!found || found.user.is_active !== 1) return null;
  if (options.markActive) {
    const staleBefore = await markUserActive(ctx, found.user, now);
    if (found.session.last_seen_at < staleBefore) await sessionRepository(db).touch(found.session.id, nowStr);
  }
  return found;
}

/**
 * Records that the user did something (a request, an ask), at most one write a minute. Returns the time before
 * which a stored activity mark counts as stale.
 */
export async function markUserActive(ctx: AppContext, user: UserRow, now = new Date()): Promise<string> {
  const nowStr = now.toISOString();
  const staleBefore = new Date(now.getTime() - ACTIVITY_WRITE_INTERVAL_MS).toISOString();
  if (!user.last_active_time || user.last_active_time < staleBefore) {
    await userRepository(ctx.dbHandle.db).touchActive(user.id, nowStr, staleBefore);
    user.last_active_time = nowStr;
  }
  return staleBefore;
}

/** Housekeeping: drops expired sessions. */
export function purgeExpiredSessions(ctx: AppContext): Promise<number> {
  return sessionRepository(ctx.dbHandle.db).deleteExpired(nowIso());
}
