import * as oidc from 'openid-client';
import { ERRORS, Username, clip, withoutInvisible } from '@cc/contracts';
import type { AppContext } from '../app-context';
import type { UserRow } from '../db/schema';
import { AppError } from '../errors/app-error';
import type { Executor } from '../repositories/executor';
import { groupRepository } from '../repositories/group.repository';
import { identityRepository } from '../repositories/identity.repository';
import { userRepository } from '../repositories/user.repository';
import { recordAudit } from './audit.service';
import { startSession } from './auth.service';
import type { LoginResult } from './auth.service';
import { claimInvite, recordInviteUse } from './invite.service';
import { NO_LOCAL_PASSWORD } from './password';
import { SSO_STATE_SECONDS, provider } from './sso-options';
import { signFor, signedFor } from './signing';
import { insertUser } from './user.service';
import { freeUsernameLike } from './username-look-alike';

/** How long a provider's discovery document is reused. */
const DISCOVERY_TTL_MS = 10 * 60_000;
/** The longest wait for the provider (discovery, token, userinfo), seconds. */
const PROVIDER_TIMEOUT_SECONDS = 10;

/**
 * Why a sign-in failed, as the login page names it: the provider is off or unreachable, the person is not
 * allowed in (unknown with `new_users: refuse`, or deactivated), the answer could not be checked (a stale or
 * forged callback), or the invite link does not work.
 */
export type SsoFailure = 'unavailable' | 'refused' | 'failed' | 'invite';

export class SsoError extends Error {
  constructor(
    readonly reason: SsoFailure,
    readonly detail?: unknown,
  ) {
    super(`single sign-on ${reason}`);
  }
}

/** Why a sign-in failed, whatever was thrown: an invite that does not work, or what `SsoError` says. */
function ssoFailureOf(e: unknown): SsoFailure {
  if (e instanceof SsoError) return e.reason;
  if (e instanceof AppError && e.def === ERRORS.inviteNotUsable) return 'invite';
  return 'failed';
}

const LOOPBACK = /^(localhost|127(\.\d{1,3}){3}|\[::1\])$/;

const discovered = new Map<string, { config: oidc.Configuration; at: number }>();

/**
 * The provider's metadata and this client, from its discovery document (kept for a few minutes). Plain HTTP is
 * accepted only for a provider on this machine (loopback), as in development and tests.
 */
async function clientConfig(ctx: AppContext): Promise<oidc.Configuration> {
  const p = provider(ctx);
  if (!p) throw new SsoError('unavailable');
  const key = `${p.issuer}\n${p.client_id}`;
  const cached = discovered.get(key);
  if (cached && Date.now() - cached.at < DISCOVERY_TTL_MS) return cached.config;
  const issuer = new URL(p.issuer);
  const insecure = issuer.protocol === 'http:' && LOOPBACK.test(issuer.hostname);
  try {
    const config = await oidc.discovery(
      issuer,
      p.client_id,
      undefined,
      p.client_secret ? oidc.ClientSecretPost(p.client_secret) : oidc.None(),
      { timeout: PROVIDER_TIMEOUT_SECONDS, ...(insecure ? { execute: [oidc.allowInsecureRequests] } : {}) },
    );
    discovered.set(key, { config, at: Date.now() });
    return config;
  } catch (e) {
    throw new SsoError('unavailable', e);
  }
}

interface StateCookie {
  state: string;
  nonce: string;
  verifier: string;
  redirectUri: string;
  /** An invite token the sign-in came through, or null. */
  invite: string | null;
  /** Expiry, ms since the epoch. */
  expires: number;
}

const STATE_PURPOSE = 'oidc-state';

function sealState(ctx: AppContext, value: StateCookie): string {
  const body = Buffer.from(JSON.stringify(value)).toString('base64url');
  return `${body}.${signFor(ctx, STATE_PURPOSE, body)}`;
}

/** The state cookie's content when its signature holds (current or rotated-out key) and it has not expired. */
function openState(ctx: AppContext, cookie: string | undefined): StateCookie {
  const [body, mac] = (cookie ?? '').split('.');
  if (!body || !mac) throw new SsoError('failed');
  if (!signedFor(ctx, STATE_PURPOSE, body, mac)) throw new SsoError('failed');
  const value = JSON.parse(Buffer.from(body, 'base64url').toString('utf8')) as StateCookie;
  if (value.expires < Date.now()) throw new SsoError('failed');
  return value;
}

export interface StartSsoInput {
  /** This server's callback URL as the browser reaches it (the request's own origin). */
  redirectUri: string;
  /** An invite token: a first sign-in through it creates the account even with `new_users: refuse`. */
  invite: string | null;
}

/** Starts the authorization code flow: the provider's URL to send the browser to, and the state cookie to set. */
export async function startSso(
  ctx: AppContext,
  input: StartSsoInput,
): Promise<{ url: string; stateCookie: string }> {
  const config = await clientConfig(ctx);
  const p = provider(ctx)!;
  const verifier = oidc.randomPKCECodeVerifier();
  const state = oidc.randomState();
  const nonce = oidc.randomNonce();
  const scope = [...new Set(['openid', ...p.scopes])].join(' ');
  const url = oidc.buildAuthorizationUrl(config, {
    redirect_uri: input.redirectUri,
    scope,
    code_challenge: await oidc.calculatePKCECodeChallenge(verifier),
    code_challenge_method: 'S256',
    state,
    nonce,
  });
  const stateCookie = sealState(ctx, {
    state,
    nonce,
    verifier,
    redirectUri: input.redirectUri,
    invite: input.invite,
    expires: Date.now() + SSO_STATE_SECONDS * 1000,
  });
  return { url: url.href, stateCookie };
}

/** What the provider says about the person, as far as this server uses it. */
interface Identity {
  issuer: string;
  subject: string;
  email: string | null;
  emailVerified: boolean;
  preferredUsername: string | null;
  name: string | null;
}

const str = (v: unknown): string | null => (typeof v === 'string' && v.trim() !== '' ? v.trim() : null);

export interface FinishSsoInput {
  /** The callback's query string as received (`?code=…&state=…`). */
  query: string;
  stateCookie: string | undefined;
  ip: string;
  userAgent: string | undefined;
}

/**
 * Completes the flow: checks the provider's answer (state, PKCE, ID token and nonce), finds or creates the
 * account, and opens a session. Every outcome is in the audit log.
 */
export async function finishSso(ctx: AppContext, input: FinishSsoInput): Promise<LoginResult> {
  let identity: Identity | null = null;
  try {
    const saved = openState(ctx, input.stateCookie);
    const config = await clientConfig(ctx);
    const tokens = await oidc
      .authorizationCodeGrant(config, new URL(`${saved.redirectUri}${input.query}`), {
        pkceCodeVerifier: saved.verifier,
        expectedState: saved.state,
        expectedNonce: saved.nonce,
        idTokenExpected: true,
      })
      .catch((e: unknown) => {
        throw new SsoError('failed', e);
      });
    const claims = tokens.claims();
    if (!claims) throw new SsoError('failed');
    let info: Record<string, unknown> = { ...claims };
    if (config.serverMetadata().userinfo_endpoint) {
      const extra = await oidc.fetchUserInfo(config, tokens.access_token, claims.sub).catch(() => null);
      if (extra) info = { ...extra, ...info, email: extra.email ?? info.email };
    }
    identity = {
      issuer: claims.iss,
      subject: claims.sub,
      email: str(info.email)?.toLowerCase() ?? null,
      emailVerified: info.email_verified !== false,
      preferredUsername: str(info.preferred_username),
      name: str(info.name),
    };
    const user = await resolveUser(ctx, identity, saved.invite, input.ip);
    const result = await startSession(ctx, user, input);
    await recordAudit(
      ctx,
      { id: user.id, name: user.username, address: input.ip },
      {
        action: 'auth.sso_login',
        targetType: 'user',
        targetId: user.id,
        targetLabel: user.username,
        changes: { subject: [null, identity.subject] },
      },
    );
    return result;
  } catch (e) {
    const reason = ssoFailureOf(e);
    const tried = identity?.preferredUsername ?? identity?.email ?? identity?.subject ?? '(single sign-on)';
    await recordAudit(
      ctx,
      { id: null, name: tried, address: input.ip },
      {
        action: 'auth.sso_login_failed',
        targetType: 'user',
        targetLabel: tried,
        changes: { reason: [null, reason] },
        outcome: 'failure',
      },
    ).catch((err: unknown) => ctx.log.error({ err }, 'audit entry of a failed sign-in not written'));
    throw e instanceof SsoError ? e : new SsoError(reason, e);
  }
}

/**
 * A username from what the provider says: preferred_username, else the email's local part, else "user", the first
 * that makes a valid new name (plain letters of one script, see `Username`); numbered when it looks like a taken one.
 */
async function freeUsername(db: Executor, identity: Identity): Promise<string> {
  const named = [identity.preferredUsername, identity.email?.split('@')[0]].flatMap((raw) => {
    // Room for a number ("_999") within the longest name.
    const parsed = raw
      ? Username.safeParse(clip(withoutInvisible(raw.normalize('NFKC')).replace(/\s+/g, ''), 28))
      : null;
    return parsed?.success ? [parsed.data] : [];
  });
  return freeUsernameLike(db, named[0] ?? 'user');
}

/** The group new accounts from single sign-on join: by name, else by id; a missing group is logged, not fatal. */
async function defaultGroupId(ctx: AppContext, db: Executor): Promise<number | null> {
  const wanted = ctx.config.auth.oidc.default_group;
  if (!wanted) return null;
  const groups = groupRepository(db);
  const found =
    (await groups.findByName(wanted)) ??
    (/^\d+$/.test(wanted) ? await groups.findById(Number(wanted)) : undefined);
  if (!found)
    ctx.log.warn({ group: wanted }, 'auth.oidc.default_group names no group; new account joins none');
  return found?.id ?? null;
}

/**
 * The account of a signed-in person: the one linked to their subject; else, through an invite, a new one; else
 * an account an admin made with the same (verified) email or username, which gets linked; else a new one when
 * `new_users` is `create`. Refused otherwise, and always for a deactivated account.
 */
async function resolveUser(
  ctx: AppContext,
  identity: Identity,
  invite: string | null,
  ip: string,
): Promise<UserRow> {
  const now = new Date().toISOString();
  const user = await ctx.dbHandle.db.transaction().execute(async (trx) => {
    const identities = identityRepository(trx);
    const users = userRepository(trx);
    const linked = await identities.findBySubject(identity.issuer, identity.subject);
    if (linked) {
      await identities.touch(linked.id, now, identity.email);
      return users.findById(linked.user_id);
    }
    const link = async (userId: number) => {
      await identities.insert({
        issuer: identity.issuer,
        subject: identity.subject,
        user_id: userId,
        email: identity.email,
        created_at: now,
        last_login_at: now,
      });
    };
    const create = async (groupId: number | null) => {
      const created = await insertUser(
        ctx,
        trx,
        {
          user: {
            username: await freeUsername(trx, identity),
            password: '',
            nickname: (identity.name ?? identity.preferredUsername ?? identity.email ?? 'user').slice(0, 64),
            email: identity.email ?? '',
            is_active: true,
            is_superuser: false,
            is_verified: identity.email !== null && identity.emailVerified,
          },
          groupId,
        },
        NO_LOCAL_PASSWORD,
      );
      await link(created.row.id);
      return created;
    };
    if (invite) {
      const claimed = await claimInvite(trx, invite);
      const created = await create(claimed.group_id);
      await recordInviteUse(ctx, trx, claimed, created, ip, 'sso');
      return created.row;
    }
    const byEmail =
      identity.email && identity.emailVerified ? await users.findLinkableByEmail(identity.email) : undefined;
    const named = identity.preferredUsername
      ? await users.findByUsername(identity.preferredUsername)
      : undefined;
    // A username links only an account an admin named (not one its owner chose through an invite link), and never
    // a superuser's: the provider's `preferred_username` is not a verified claim.
    const byName = named && named.self_claimed === 0 && named.is_superuser === 0 ? named : undefined;
    // An account is linked to one subject per provider: another person with the same email or username cannot
    // take it over (with `new_users: create` they get an account of their own).
    for (const existing of [byEmail, byName]) {
      if (existing && !(await identities.findByUser(identity.issuer, existing.id))) {
        await link(existing.id);
        return existing;
      }
    }
    if (ctx.config.auth.oidc.new_users !== 'create') throw new SsoError('refused');
    return (await create(await defaultGroupId(ctx, trx))).row;
  });
  if (!user || user.is_active !== 1) throw new SsoError('refused');
  return user;
}
