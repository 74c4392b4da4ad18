import { createHmac, randomBytes } from 'node:crypto';
import type { AppContext } from '../app-context';
import type { SessionRow, UserRow } from '../db/schema';
import { fail, isAppError } from '../errors/app-error';
import { nowIso } from '../repositories/executor';
import type { Executor } from '../repositories/executor';
import { sessionRepository } from '../repositories/session.repository';
import { userRepository } from '../repositories/user.repository';
import { recordAudit } from './audit.service';
import { deviceCookieAfterLogin, trustedDevice } from './device-trust';
import { PASSWORD_RESET_REQUIRED, hashPassword, needsRehash, verifyPassword } from './password';

/** Session digests are HMACs of the cookie token; the token itself is never stored. */
function digest(ctx: AppContext, token: string, key = ctx.secrets.sessionKey): string {
  return createHmac('sha256', key).update(token).digest('hex');
}

/** The live session of a token: under the current key, else under a key being rotated out. */
async function findSession(ctx: AppContext, token: string, now: string) {
  const sessions = sessionRepository(ctx.dbHandle.db);
  for (const key of [ctx.secrets.sessionKey, ...ctx.secrets.previousSessionKeys]) {
    const found = await sessions.findLiveWithUser(digest(ctx, token, key), now);
    if (found) return found;
  }
  return undefined;
}

const ACTIVITY_WRITE_INTERVAL_MS = 60_000;

export interface LoginInput {
  username: string;
  password: string;
  /** Client address, for throttling and the session record. */
  ip: string;
  userAgent: string | undefined;
  /** The browser's device cookie (`device-trust.ts`), if it sent one. */
  device?: string;
}

export interface LoginResult {
  /** Goes into the cookie, nowhere else. */
  token: string;
  user: UserRow;
  maxAgeSeconds: number;
}

/** Failed logins one address may make across all accounts, as a multiple of the per-account limit. */
const ADDRESS_LIMIT_FACTOR = 4;

/** A password login that succeeded: its session, and the browser's device cookie, now trusted for the account. */
export interface PasswordLoginResult extends LoginResult {
  device: string;
}

/**
 * The two throttles: one per account, wherever the attempts come from, and one per client address. A browser the
 * account logged in on before counts its failures on its own instead of the account's (`trustedDevice`): a lockout
 * made by someone guessing elsewhere does not lock its user out.
 */
function throttleKeys(ctx: AppContext, input: LoginInput): { account: string; address: string } {
  const device = trustedDevice(ctx, input.device, input.username);
  return {
    account: device ? `login-device:${device}` : `login-user:${input.username.toLowerCase()}`,
    address: `login-ip:${input.ip}`,
  };
}

/**
 * Reserves a password check against both throttles before it happens, so parallel attempts cannot all pass a
 * check of the count made before any of them failed. The account is counted first: attempts refused there
 * never reach the address's count, so a flood against one account does not lock out everybody else behind the
 * same address. An attempt refused by the address gives its account reservation back.
 */
async function reserveAttempt(ctx: AppContext, keys: { account: string; address: string }): Promise<void> {
  const { auth } = ctx.config;
  const counter = ctx.coordination.counter;
  const window = auth.login_failure_window_seconds;
  if ((await counter.hit(keys.account, window)) > auth.login_max_failures) {
    throw fail.tooManyRequests('errors.tooManyLoginAttempts');
  }
  if ((await counter.hit(keys.address, window)) > auth.login_max_failures * ADDRESS_LIMIT_FACTOR) {
    await counter.decrement(keys.account);
    throw fail.tooManyRequests('errors.tooManyLoginAttempts');
  }
}

/**
 * The account a login names: the name as typed, else as new names are stored (NFKC: "ａｄｍｉｎ" typed in a full-width
 * input mode is admin). Names given before that rule still match as they are.
 */
async function findAccount(db: Executor, username: string): Promise<UserRow | undefined> {
  const users = userRepository(db);
  const exact = await users.findByUsername(username);
  const plain = username.normalize('NFKC');
  return exact ?? (plain === username ? undefined : users.findByUsername(plain));
}

/**
 * Checks credentials and opens a server-side session. Failures are throttled with 429 per account and per
 * address (see `reserveAttempt`); a success gives its reservation back, and so does a failure of the server (the
 * database did not answer); the visitor's failures keep theirs for the window.
 * Every attempt is in the audit log: a success under the user, a failure (wrong password, unknown or inactive
 * user, throttled) under the username tried.
 */
export async function login(ctx: AppContext, input: LoginInput): Promise<PasswordLoginResult> {
  const db = ctx.dbHandle.db;
  const keys = throttleKeys(ctx, input);
  let found: UserRow | undefined;
  let user: UserRow;
  let reserved = false;
  try {
    await reserveAttempt(ctx, keys);
    reserved = true;
    found = await findAccount(db, input.username);
    const valid = await verifyPassword(found?.hashed_password ?? null, input.password);
    if (found?.hashed_password === PASSWORD_RESET_REQUIRED && found.is_active === 1)
      throw fail.passwordResetRequired();
    if (!found || !valid || found.is_active !== 1) throw fail.badCredentials();
    user = found;
    if (needsRehash(found.hashed_password)) user = await upgradeHash(ctx, found, input.password);
  } catch (e) {
    if (!isAppError(e) || e.status >= 500) {
      // Not the visitor's failure (the database did not answer): it counts toward no lockout.
      if (reserved)
        await releaseAttempt(ctx, keys).catch((err: unknown) =>
          ctx.log.warn({ err }, 'login throttle reservation not given back'),
        );
      throw e;
    }
    await recordAudit(
      ctx,
      { id: null, name: input.username, address: input.ip },
      {
        action: 'auth.login_failed',
        targetType: 'user',
        targetId: found?.id ?? null,
        targetLabel: input.username,
        outcome: 'failure',
      },
    ).catch((err: unknown) => ctx.log.error({ err }, 'audit entry of a failed login not written'));
    throw e;
  }
  await releaseAttempt(ctx, keys);
  const result = await startSession(ctx, user, input);
  await recordAudit(
    ctx,
    { id: user.id, name: user.username, address: input.ip },
    {
      action: 'auth.login',
      targetType: 'user',
      targetId: user.id,
      targetLabel: user.username,
    },
  );
  return { ...result, device: deviceCookieAfterLogin(ctx, input.device, input.username) };
}

/** An imported (bcrypt) hash that just matched is replaced by our own, so the old format leaves with its last use. */
async function upgradeHash(ctx: AppContext, user: UserRow, plain: string): Promise<UserRow> {
  const hashed_password = await hashPassword(plain);
  return (await userRepository(ctx.dbHandle.db).update(user.id, { hashed_password })) ?? user;
}

/** Gives an attempt's throttle reservations back (a login that succeeded, or failed through no fault of its own). */
async function releaseAttempt(ctx: AppContext, keys: { account: string; address: string }): Promise<void> {
  const counter = ctx.coordination.counter;
  await counter.decrement(keys.account);
  await counter.decrement(keys.address);
}

/** Opens a server-side session for a user whose identity is established (password checked, or single sign-on). */
export async function startSession(
  ctx: AppContext,
  user: UserRow,
  client: { ip: string; userAgent: string | undefined },
): Promise<LoginResult> {
  const { auth } = ctx.config;
  const token = randomBytes(32).toString('base64url');
  const now = new Date();
  await sessionRepository(ctx.dbHandle.db).insert({
    id: digest(ctx, token),
    user_id: user.id,
    created_at: now.toISOString(),
    expires_at: new Date(now.getTime() + auth.jwt_lifetime_seconds * 1000).toISOString(),
    last_seen_at: now.toISOString(),
    user_agent: client.userAgent?.slice(0, 512) ?? null,
    ip: client.ip.slice(0, 64),
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
 * (user's last_active_time and the session's last_seen_at, written within a second by `ActivityWriter`).
 */
export async function authenticate(
  ctx: AppContext,
  token: string | undefined,
  options: { markActive: boolean } = { markActive: true },
): Promise<Authenticated | null> {
  if (!token || token.length > 200) return null;
  const now = new Date();
  const nowStr = now.toISOString();
  const found = await findSession(ctx, token, nowStr);
  if (!found || found.user.is_active !== 1) return null;
  if (options.markActive) {
    const staleBefore = markUserActive(ctx, found.user, now);
    ctx.activity.applySession(found.session);
    if (found.session.last_seen_at < staleBefore) {
      ctx.activity.markSession(found.session.id, nowStr, staleBefore);
      found.session.last_seen_at = nowStr;
    }
  }
  return found;
}

/**
 * Records that the user did something (a request, an ask), at most one write a minute (written within a second,
 * with other users' marks: `ActivityWriter`). Returns the time before which a stored activity mark counts as stale.
 */
export function markUserActive(ctx: AppContext, user: UserRow, now = new Date()): string {
  const nowStr = now.toISOString();
  const staleBefore = new Date(now.getTime() - ACTIVITY_WRITE_INTERVAL_MS).toISOString();
  ctx.activity.apply(user);
  if (!user.last_active_time || user.last_active_time < staleBefore) {
    ctx.activity.mark(user.id, nowStr, staleBefore);
    user.last_active_time = nowStr;
  }
  return staleBefore;
}

/** Housekeeping: drops expired sessions. */
export function purgeExpiredSessions(ctx: AppContext): Promise<number> {
  return sessionRepository(ctx.dbHandle.db).deleteExpired(nowIso());
}
