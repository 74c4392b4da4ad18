import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import type { ConfigInput } from '@cc/contracts';
import { MASKED_SECRET, SESSION_COOKIE } from '@cc/contracts';
import { createGroup } from '../services/group.service';
import { ADMIN, createTestApp } from '../test/harness';
import type { TestApp } from '../test/harness';
import {
  CookieJar,
  OIDC_CLIENT,
  send,
  signInThroughProvider,
  startOidcProvider,
} from '../test/oidc-provider';
import type { TestOidcProvider } from '../test/oidc-provider';

const ADMIN_ACTOR = { id: null, name: 'test', address: null };

let idp: TestOidcProvider;

beforeAll(async () => {
  idp = await startOidcProvider();
});
afterAll(() => idp.close());

const oidcConfig = (over: Record<string, unknown> = {}): ConfigInput => ({
  auth: {
    oidc: {
      enabled: true,
      issuer: idp.issuer,
      client_id: OIDC_CLIENT.id,
      client_secret: OIDC_CLIENT.secret,
      button_label: 'Team login',
      ...over,
    },
  },
});

/** The app listening on a real port (the provider redirects the browser to it), registered at the provider. */
async function listening(t: TestApp): Promise<string> {
  const base = await t.app.listen({ host: '127.0.0.1', port: 0 });
  idp.allowRedirect(`${base}/api/auth/oidc/callback`);
  return base;
}

/** Signs in through the provider as `login`; the app's last answer (a redirect) and the jar. */
async function ssoSignIn(base: string, login: string, invite?: string) {
  const jar = new CookieJar();
  const start = `${base}/api/auth/oidc/start${invite ? `?invite=${invite}` : ''}`;
  const { res } = await signInThroughProvider(jar, start, login);
  return { res, jar, location: res.headers.get('location'), session: jar.get(base, SESSION_COOKIE) };
}

async function me(t: TestApp, session: string | undefined) {
  const res = await t.app.inject({
    url: '/api/user/me',
    headers: { cookie: `${SESSION_COOKIE}=${session}` },
  });
  return res.json();
}

async function auditActions(t: TestApp): Promise<string[]> {
  const cookie = await t.login(ADMIN.username, ADMIN.password);
  const res = await t.app.inject({ url: '/api/system/audit?limit=500', headers: { cookie } });
  return (res.json().result.items as { action: string }[]).map((e) => e.action);
}

describe('single sign-on (OpenID Connect, real provider)', () => {
  let t: TestApp;
  let base: string;
  afterEach(async () => {
    await t?.close();
  });

  it('shows the button only when enabled', async () => {
    t = await createTestApp();
    const off = await t.app.inject({ url: '/api/auth/options' });
    expect(off.json().result).toEqual({ sso: null });
    const start = await t.app.inject({ url: '/api/auth/oidc/start' });
    expect(start.statusCode).toBe(302);
    expect(start.headers.location).toBe('/login?sso_error=unavailable');
    await t.close();
    t = await createTestApp(oidcConfig());
    const on = await t.app.inject({ url: '/api/auth/options' });
    expect(on.json().result).toEqual({ sso: { label: 'Team login', start_path: '/api/auth/oidc/start' } });
    // The client secret is masked in the admin console, and the config saved back as shown keeps it.
    const cookie = await t.login(ADMIN.username, ADMIN.password);
    const shown = (await t.app.inject({ url: '/api/system/config', headers: { cookie } })).json().result;
    expect(shown.auth.oidc).toMatchObject({ enabled: true, client_secret: MASKED_SECRET });
    expect(JSON.stringify(shown)).not.toContain(OIDC_CLIENT.secret);
    const saved = await t.app.inject({
      method: 'PUT',
      url: '/api/system/config',
      headers: { cookie },
      payload: shown,
    });
    expect(saved.statusCode).toBe(200);
    expect(t.ctx.config.auth.oidc.client_secret).toBe(OIDC_CLIENT.secret);
  });

  it('creates the account at a first sign-in (new_users: create) with the default group, no local password', async () => {
    t = await createTestApp(oidcConfig({ new_users: 'create', default_group: 'sso-team' }));
    const group = await createGroup(
      t.ctx,
      {
        name: 'sso-team',
        openai_web: { ...t.ctx.config.user_defaults.openai_web, max_conv_count: 3 },
        openai_api: (({ custom_openai_api_settings: _c, ...rest }) => rest)(
          t.ctx.config.user_defaults.openai_api,
        ),
      },
      ADMIN_ACTOR,
    );
    base = await listening(t);
    idp.accounts.set('alice', { name: 'Alice A' });
    const first = await ssoSignIn(base, 'alice');
    expect(first.location).toBe('/login?sso=done');
    const user = (await me(t, first.session)).result;
    expect(user).toMatchObject({ username: 'alice', nickname: 'Alice A', email: 'alice@example.test' });
    expect(user.setting.openai_web.max_conv_count).toBe(3);
    const admin = await t.login(ADMIN.username, ADMIN.password);
    const row = (await t.app.inject({ url: `/api/user/${user.id}`, headers: { cookie: admin } })).json()
      .result;
    expect(row.group_id).toBe(group.row.id);
    // No password opens it locally.
    const local = await t.app.inject({
      method: 'POST',
      url: '/api/auth/login',
      payload: 'username=alice&password=',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    expect(local.statusCode).not.toBe(200);

    // The provider changes her email: the subject still finds the same account, no second one.
    idp.accounts.set('alice', { name: 'Alice A', email: 'alice.new@example.test' });
    const again = await ssoSignIn(base, 'alice');
    expect((await me(t, again.session)).result.id).toBe(user.id);
    const users = (await t.app.inject({ url: '/api/user', headers: { cookie: admin } })).json().result;
    expect(users.filter((u: { username: string }) => u.username.startsWith('alice'))).toHaveLength(1);
    expect(await auditActions(t)).toContain('auth.sso_login');
  });

  it('makes a taken username unique', async () => {
    t = await createTestApp(oidcConfig({ new_users: 'create' }));
    await t.createUser({ username: 'bob', email: 'someone-else@example.com' });
    base = await listening(t);
    const signedIn = await ssoSignIn(base, 'bob');
    // An account an admin made with the same username is linked, not duplicated.
    expect((await me(t, signedIn.session)).result.username).toBe('bob');
    // Another person who calls themself bob gets an account of their own.
    idp.accounts.set('bob2', { preferred_username: 'bob', email: 'bob2@example.test' });
    const other = await ssoSignIn(base, 'bob2');
    expect((await me(t, other.session)).result.username).toBe('bob_2');
  });

  it('makes a new username from the provider plain, of one script, and unlike any other', async () => {
    t = await createTestApp(oidcConfig({ new_users: 'create' }));
    await t.createUser({ username: 'bob', email: 'bob@example.com' });
    base = await listening(t);
    // Full-width: the plain name, which looks like bob's.
    idp.accounts.set('wide', { preferred_username: 'ｂｏｂ', email: 'wide@example.test' });
    expect((await me(t, (await ssoSignIn(base, 'wide')).session)).result.username).toBe('bob_2');
    // A Cyrillic "о" among Latin letters: the email's name instead.
    idp.accounts.set('mixed', { preferred_username: 'bоb', email: 'mixed.one@example.test' });
    expect((await me(t, (await ssoSignIn(base, 'mixed')).session)).result.username).toBe('mixed.one');
    idp.accounts.set('zero', { preferred_username: 'B0B', email: 'zero@example.test' });
    expect((await me(t, (await ssoSignIn(base, 'zero')).session)).result.username).toBe('B0B_3');
  });

  it('refuses an unknown person with new_users: refuse, and links an account an admin made', async () => {
    t = await createTestApp(oidcConfig({ new_users: 'refuse' }));
    base = await listening(t);
    const refused = await ssoSignIn(base, 'carol');
    expect(refused.location).toBe('/login?sso_error=refused');
    expect(refused.session).toBeUndefined();
    expect(await auditActions(t)).toContain('auth.sso_login_failed');

    const made = await t.createUser({ username: 'dave-local', email: 'Dave@Example.test' });
    const linked = await ssoSignIn(base, 'dave');
    expect(linked.location).toBe('/login?sso=done');
    expect((await me(t, linked.session)).result.id).toBe(made.row.id);
    // The local password of that account still works.
    await t.login('dave-local', made.password);
    // A deactivated account is refused, linked or not.
    const admin = await t.login(ADMIN.username, ADMIN.password);
    await t.app.inject({
      method: 'PATCH',
      url: `/api/user/${made.row.id}`,
      headers: { cookie: admin },
      payload: { is_active: false },
    });
    expect((await ssoSignIn(base, 'dave')).location).toBe('/login?sso_error=refused');
  });

  it("never lands a first sign-in in an account whose email or username its owner chose, nor a superuser's by name", async () => {
    t = await createTestApp(oidcConfig({ new_users: 'create' }));
    base = await listening(t);
    const admin = await t.login(ADMIN.username, ADMIN.password);
    const patch = (url: string, cookie: string, payload: Record<string, unknown>) =>
      t.app.inject({ method: 'PATCH', url, headers: { cookie }, payload });

    // Bob puts a colleague's email on his own account before she first signs in: she gets her own.
    const bob = await t.createUser({ username: 'bob', email: 'bob@example.test' });
    const bobCookie = await t.login('bob', bob.password);
    expect((await patch('/api/user/me', bobCookie, { email: 'Carol@example.test' })).statusCode).toBe(200);
    const carol = await ssoSignIn(base, 'carol');
    expect((await me(t, carol.session)).result).toMatchObject({
      username: 'carol',
      email: 'carol@example.test',
    });
    expect((await me(t, carol.session)).result.id).not.toBe(bob.row.id);

    // An account made through an invite link names itself: the person the provider calls so gets their own.
    const invite = (
      await t.app.inject({
        method: 'POST',
        url: '/api/system/invites',
        headers: { cookie: admin },
        payload: { expires_in_hours: 1, max_uses: 1 },
      })
    ).json().result as { token: string };
    const accepted = await t.app.inject({
      method: 'POST',
      url: `/api/invite/${invite.token}`,
      payload: { username: 'dora', password: 'invited-pass-1', email: 'dora@example.test' },
    });
    expect(accepted.statusCode).toBe(201);
    const dora = await ssoSignIn(base, 'dora');
    expect((await me(t, dora.session)).result.username).toBe('dora_2');

    // The provider's "admin" is not this site's superuser.
    const named = await ssoSignIn(base, 'admin');
    expect((await me(t, named.session)).result).toMatchObject({ username: 'admin_2', is_superuser: false });

    // An email an admin gives links again: the admin sets Bob's to Erin's, and Erin's sign-in is Bob's account.
    expect((await patch(`/api/user/${bob.row.id}`, admin, { email: 'erin@example.test' })).statusCode).toBe(
      200,
    );
    const erin = await ssoSignIn(base, 'erin');
    expect((await me(t, erin.session)).result.id).toBe(bob.row.id);
  });

  it('refuses a forged or replayed callback', async () => {
    t = await createTestApp(oidcConfig({ new_users: 'create' }));
    base = await listening(t);
    const jar = new CookieJar();
    const res = await send(jar, `${base}/api/auth/oidc/callback?code=x&state=y`);
    expect(res.headers.get('location')).toBe('/login?sso_error=failed');
    expect(jar.get(base, SESSION_COOKIE)).toBeUndefined();
  });

  it('keeps the local login working with the provider down', async () => {
    t = await createTestApp(oidcConfig({ issuer: 'http://127.0.0.1:9' }));
    const start = await t.app.inject({ url: '/api/auth/oidc/start' });
    expect(start.headers.location).toBe('/login?sso_error=unavailable');
    await t.login(ADMIN.username, ADMIN.password);
  });
});

describe('invite links', () => {
  let t: TestApp;
  let admin: string;
  beforeAll(async () => {
    t = await createTestApp(oidcConfig({ new_users: 'refuse' }));
    admin = await t.login(ADMIN.username, ADMIN.password);
  });
  afterAll(() => t.close());
  afterEach(() => {
    vi.useRealTimers();
  });

  const create = async (body: Record<string, unknown>) => {
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/system/invites',
      headers: { cookie: admin },
      payload: body,
    });
    expect(res.statusCode).toBe(201);
    return res.json().result as { id: number; token: string; usable: boolean };
  };
  const accept = (token: string, username: string) =>
    t.app.inject({
      method: 'POST',
      url: `/api/invite/${token}`,
      payload: { username, password: 'invited-pass-1' },
    });

  it('lets a visitor make an account with the group, counted, listed, audited', async () => {
    const group = await createGroup(
      t.ctx,
      {
        name: 'invited',
        openai_web: { ...t.ctx.config.user_defaults.openai_web, max_conv_count: 4 },
        openai_api: (({ custom_openai_api_settings: _c, ...rest }) => rest)(
          t.ctx.config.user_defaults.openai_api,
        ),
      },
      ADMIN_ACTOR,
    );
    const invite = await create({ expires_in_hours: 24, max_uses: 2, group_id: group.row.id });
    expect(invite.token.length).toBeGreaterThanOrEqual(22);
    const status = (await t.app.inject({ url: `/api/invite/${invite.token}` })).json().result;
    expect(status).toMatchObject({ usable: true, refusal: null, sso_label: 'Team login' });
    expect((await accept(invite.token, 'erin')).statusCode).toBe(201);
    const cookie = await t.login('erin', 'invited-pass-1');
    const erin = (await t.app.inject({ url: '/api/user/me', headers: { cookie } })).json().result;
    expect(erin.setting.openai_web.max_conv_count).toBe(4);
    // A taken username gives the use back.
    expect((await accept(invite.token, 'erin')).statusCode).toBe(409);
    expect((await accept(invite.token, 'frank')).statusCode).toBe(201);
    const used = await accept(invite.token, 'gina');
    expect(used.statusCode).toBe(410);
    expect(used.json().result).toEqual({ reason: 'used_up' });
    const list = (await t.app.inject({ url: '/api/system/invites', headers: { cookie: admin } })).json()
      .result;
    expect(list.find((i: { id: number }) => i.id === invite.id)).toMatchObject({ uses: 2, usable: false });
    expect(JSON.stringify(list)).not.toContain(invite.token);
    const actions = await auditActions(t);
    expect(actions).toContain('invite.create');
    expect(actions.filter((a) => a === 'invite.use')).toHaveLength(2);
  });

  it("refuses a name that looks like another user's without naming that user, and gives the use back", async () => {
    await t.createUser({ username: 'martha' });
    const invite = await create({ expires_in_hours: 1, max_uses: 1 });
    expect((await accept(invite.token, 'mаrtha')).statusCode).toBe(422);
    expect((await accept(invite.token, 'ｍａｒｔｈａ')).json()).toMatchObject({
      message: 'errors.userAlreadyExists',
    });
    expect((await accept(invite.token, 'rnartha')).json()).toEqual({
      code: 409,
      message: 'errors.usernameLookAlike',
      result: 'errors.detail.username',
      params: { username: 'rnartha' },
    });
    expect((await accept(invite.token, 'martha_2')).statusCode).toBe(201);
  });

  it('makes exactly one account from two parallel uses of a single-use link', async () => {
    const invite = await create({ expires_in_hours: 1, max_uses: 1 });
    const results = await Promise.all([accept(invite.token, 'race1'), accept(invite.token, 'race2')]);
    expect(results.map((r) => r.statusCode).sort()).toEqual([201, 410]);
  });

  it('stops working when it expires', async () => {
    const invite = await create({ expires_in_hours: 1, max_uses: null });
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(Date.now() + 3600_000 + 1000);
    const res = await accept(invite.token, 'late');
    expect(res.statusCode).toBe(410);
    expect(res.json().result).toEqual({ reason: 'expired' });
    expect((await t.app.inject({ url: `/api/invite/${invite.token}` })).json().result.refusal).toBe(
      'expired',
    );
  });

  it('stops working when revoked; an unknown token is refused', async () => {
    const invite = await create({ expires_in_hours: 1, max_uses: null });
    const revoked = await t.app.inject({
      method: 'DELETE',
      url: `/api/system/invites/${invite.id}`,
      headers: { cookie: admin },
    });
    expect(revoked.json().result).toMatchObject({ usable: false });
    expect((await accept(invite.token, 'henry')).json().result).toEqual({ reason: 'revoked' });
    expect((await accept('x'.repeat(32), 'ivan')).json().result).toEqual({ reason: 'unknown' });
    expect(await auditActions(t)).toContain('invite.revoke');
  });

  it('creates the account through single sign-on even with new_users: refuse', async () => {
    const base = await listening(t);
    const invite = await create({ expires_in_hours: 1, max_uses: 1 });
    const signedIn = await ssoSignIn(base, 'judy', invite.token);
    expect(signedIn.location).toBe('/login?sso=done');
    expect((await me(t, signedIn.session)).result.username).toBe('judy');
    // Used up now: the next person is refused.
    const next = await ssoSignIn(base, 'kim', invite.token);
    expect(next.location).toBe('/login?sso_error=invite');
  });
});
