import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { verifyPassword } from '../services/password';
import type * as PasswordModule from '../services/password';
import { ADMIN, createTestApp, sessionCookie } from '../test/harness';
import type { TestApp } from '../test/harness';
import { dropRedisKeys, testRedisPrefix } from '../test/redis-keys';

// The real verification, counted: throttling must refuse before a password is checked.
vi.mock('../services/password', async (importOriginal) => {
  const actual: typeof PasswordModule = await importOriginal();
  return { ...actual, verifyPassword: vi.fn(actual.verifyPassword) };
});

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp({ auth: { login_max_failures: 3 } });
});
afterAll(() => t.close());

function form(fields: Record<string, string>) {
  return {
    payload: new URLSearchParams(fields).toString(),
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
  };
}

function multipart(fields: Record<string, string>) {
  const boundary = '----cc' + Math.random().toString(16).slice(2);
  const body =
    Object.entries(fields)
      .map(([k, v]) => `--${boundary}\r\nContent-Disposition: form-data; name="${k}"\r\n\r\n${v}\r\n`)
      .join('') + `--${boundary}--\r\n`;
  return { payload: body, headers: { 'content-type': `multipart/form-data; boundary=${boundary}` } };
}

describe('POST /api/auth/login', () => {
  it('accepts a multipart form and sets an HttpOnly SameSite=Lax session cookie', async () => {
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/auth/login',
      ...multipart({ ...ADMIN, grant_type: 'password' }),
    });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ code: 200, message: 'tips.requestSuccess', result: null });
    const c = res.cookies.find((x) => x.name === 'cc_session');
    expect(c).toMatchObject({ httpOnly: true, sameSite: 'Lax', path: '/', maxAge: 259200 });
    const me = await t.app.inject({ url: '/api/user/me', headers: { cookie: sessionCookie(res) } });
    expect(me.json().result.username).toBe('admin');
  });

  it('accepts an urlencoded form with scope and client fields', async () => {
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/auth/login',
      ...form({ ...ADMIN, scope: '', client_id: 'x', client_secret: 'y' }),
    });
    expect(res.statusCode).toBe(200);
  });

  it('finds the account of a name typed in full-width letters; a name given before that rule still matches', async () => {
    const typed = await t.app.inject({
      method: 'POST',
      url: '/api/auth/login',
      ...form({ ...ADMIN, username: 'ａｄｍｉｎ' }),
    });
    expect(typed.statusCode).toBe(200);
    const me = await t.app.inject({ url: '/api/user/me', headers: { cookie: sessionCookie(typed) } });
    expect(me.json().result.username).toBe('admin');

    const legacy = await t.createUser();
    await t.ctx.dbHandle.db
      .updateTable('users')
      .set({ username: 'ｌｅｇａｃｙ' })
      .where('id', '=', legacy.row.id)
      .execute();
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/auth/login',
      ...form({ username: 'ｌｅｇａｃｙ', password: legacy.password }),
    });
    expect(res.statusCode).toBe(200);
  });

  it('rejects a grant_type other than password with a 422 detail list', async () => {
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/auth/login',
      ...form({ ...ADMIN, grant_type: 'client' }),
    });
    expect(res.statusCode).toBe(422);
    const body = res.json();
    expect(body.code).toBe(422);
    expect(body.result.detail[0]).toMatchObject({
      loc: ['body', 'grant_type'],
      msg: 'validation.grantTypePassword',
    });
  });

  it('requires username and password', async () => {
    const res = await t.app.inject({ method: 'POST', url: '/api/auth/login', ...form({}) });
    expect(res.statusCode).toBe(422);
    const locs = res.json().result.detail.map((d: { loc: string[] }) => d.loc.join('.'));
    expect(locs).toEqual(expect.arrayContaining(['body.username', 'body.password']));
  });

  it('refuses a multipart form of more fields than it reads, or with a file, with 400 multipartLimit', async () => {
    const extra = Object.fromEntries(Array.from({ length: 16 }, (_, i) => [`f${i}`, 'x']));
    const withFile = multipart(ADMIN);
    const boundary = withFile.headers['content-type'].split('boundary=')[1]!;
    withFile.payload =
      `--${boundary}\r\nContent-Disposition: form-data; name="avatar"; filename="a.png"\r\n\r\nxx\r\n` +
      withFile.payload;
    for (const body of [multipart({ ...ADMIN, ...extra }), withFile]) {
      // An address of its own: the login calls of other tests are counted per address.
      const res = await t.app.inject({
        method: 'POST',
        url: '/api/auth/login',
        ...body,
        remoteAddress: '10.0.7.7',
      });
      expect(res.statusCode).toBe(400);
      expect(res.json()).toEqual({
        code: 400,
        message: 'errors.invalidRequest',
        result: 'errors.detail.multipartLimit',
      });
    }
  });

  it('answers 10401 for a wrong password, an unknown user and an inactive user', async () => {
    const inactive = await t.createUser({ is_active: false });
    for (const fields of [
      { username: 'admin', password: 'wrong-password' },
      { username: 'nobody-here', password: 'whatever-123' },
      { username: inactive.row.username, password: inactive.password },
    ]) {
      const res = await t.app.inject({
        method: 'POST',
        url: '/api/auth/login',
        ...form(fields),
        remoteAddress: '10.0.0.9',
      });
      expect(res.statusCode).toBe(401);
      expect(res.json()).toMatchObject({ code: 10401, message: 'errors.badCredentials' });
      expect(res.cookies.find((c) => c.name === 'cc_session')).toBeUndefined();
    }
  });

  it('throttles repeated failures with 429 and the envelope, even with the right password', async () => {
    const u = await t.createUser();
    const attempt = (password: string) =>
      t.app.inject({
        method: 'POST',
        url: '/api/auth/login',
        ...form({ username: u.row.username, password }),
        remoteAddress: '10.0.0.7',
      });
    for (let i = 0; i < 3; i++) expect((await attempt('bad-password')).statusCode).toBe(401);
    const blocked = await attempt(u.password);
    expect(blocked.statusCode).toBe(429);
    expect(blocked.json()).toMatchObject({ code: 429, message: 'errors.tooManyRequests' });
    // The account is locked wherever the attempts come from; another account behind the same address is not.
    const elsewhere = await t.app.inject({
      method: 'POST',
      url: '/api/auth/login',
      ...form({ username: u.row.username, password: u.password }),
      remoteAddress: '10.0.0.8',
    });
    expect(elsewhere.statusCode).toBe(429);
    const other = await t.createUser();
    const neighbour = await t.app.inject({
      method: 'POST',
      url: '/api/auth/login',
      ...form({ username: other.row.username, password: other.password }),
      remoteAddress: '10.0.0.7',
    });
    expect(neighbour.statusCode).toBe(200);
  });

  it('a login the database fails is no failed attempt: after it recovers the user logs in, not locked out', async () => {
    const u = await t.createUser();
    const attempt = () =>
      t.app.inject({
        method: 'POST',
        url: '/api/auth/login',
        ...form({ username: u.row.username, password: u.password }),
        remoteAddress: '10.0.0.9',
      });
    const down = vi.spyOn(t.ctx.dbHandle.db, 'selectFrom').mockImplementation(() => {
      throw new Error('the database does not answer');
    });
    try {
      for (let i = 0; i < 5; i++) expect((await attempt()).statusCode).toBe(500);
    } finally {
      down.mockRestore();
    }
    expect((await attempt()).statusCode).toBe(200);
  });

  it('limits login calls per address to 30 a minute; with Redis every instance counts together', async () => {
    const shared = process.env.CC_TEST_REDIS_URL;
    const prefix = testRedisPrefix();
    // Without Redis the second "instance" is the same app: the limit is then per instance.
    const a = shared ? await createTestApp({ data: { redis_prefix: prefix } }) : t;
    const b = shared ? await createTestApp({ data: { redis_prefix: prefix } }) : t;
    try {
      const attempt = (app: TestApp) =>
        app.app.inject({
          method: 'POST',
          url: '/api/auth/login',
          ...form({ username: ADMIN.username, password: ADMIN.password }),
          remoteAddress: '10.0.9.9',
        });
      for (let i = 0; i < 15; i++) {
        expect((await attempt(a)).statusCode).toBe(200);
        expect((await attempt(b)).statusCode).toBe(200);
      }
      const limited = await attempt(b);
      expect(limited.statusCode).toBe(429);
      expect(limited.json()).toMatchObject({ code: 429, message: 'errors.tooManyRequests' });
    } finally {
      if (shared) {
        await Promise.all([a.close(), b.close()]);
        await dropRedisKeys(shared, prefix);
      }
    }
  });
});

/** A form login to `app` from `remoteAddress`, with any other headers (a proxy's, a cookie). */
function loginFrom(
  app: TestApp,
  fields: { username: string; password: string },
  remoteAddress: string,
  headers: Record<string, string> = {},
) {
  return app.app.inject({
    method: 'POST',
    url: '/api/auth/login',
    payload: new URLSearchParams(fields).toString(),
    headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
    remoteAddress,
  });
}

describe('login throttling', () => {
  /** Default limits (login_max_failures 5), not proxied. */
  let plain: TestApp;
  /** One failure per account, four per address; behind a proxy at 127.0.0.1 (where inject comes from). */
  let strict: TestApp;
  let proxied: TestApp;
  beforeAll(async () => {
    plain = await createTestApp();
    strict = await createTestApp({ auth: { login_max_failures: 1 } });
    proxied = await createTestApp({ http: { trust_proxy: ['127.0.0.1'] }, auth: { login_max_failures: 1 } });
  });
  afterAll(async () => {
    await Promise.all([plain.close(), strict.close(), proxied.close()]);
  });

  const attempt = (
    app: TestApp,
    fields: { username: string; password: string },
    remoteAddress: string,
    forwardedFor?: string,
  ) => loginFrom(app, fields, remoteAddress, forwardedFor ? { 'x-forwarded-for': forwardedFor } : {});

  it('checks at most login_max_failures passwords of 25 parallel wrong logins, refuses the rest with 429', async () => {
    const victim = await plain.createUser();
    const neighbour = await plain.createUser();
    vi.mocked(verifyPassword).mockClear();
    const results = await Promise.all(
      Array.from({ length: 25 }, () =>
        attempt(plain, { username: victim.row.username, password: 'wrong-password' }, '10.0.3.1'),
      ),
    );
    expect(vi.mocked(verifyPassword)).toHaveBeenCalledTimes(5);
    const statuses = results.map((r) => r.statusCode);
    expect(statuses.filter((s) => s === 401)).toHaveLength(5);
    expect(statuses.filter((s) => s === 429)).toHaveLength(20);
    // The account is locked for its window, even with the right password from elsewhere...
    expect(
      (await attempt(plain, { username: victim.row.username, password: victim.password }, '10.0.3.2'))
        .statusCode,
    ).toBe(429);
    // ...but not everybody behind the address that flooded it.
    const res = await attempt(
      plain,
      { username: neighbour.row.username, password: neighbour.password },
      '10.0.3.1',
    );
    expect(res.statusCode).toBe(200);
  });

  it('stops one address trying many accounts', async () => {
    const user = await strict.createUser();
    for (let i = 0; i < 4; i++)
      expect(
        (await attempt(strict, { username: `nobody-${i}`, password: 'wrong-password' }, '10.0.4.1'))
          .statusCode,
      ).toBe(401);
    expect(
      (await attempt(strict, { username: user.row.username, password: user.password }, '10.0.4.1'))
        .statusCode,
    ).toBe(429);
    // Being refused by its address did not count against the account.
    expect(
      (await attempt(strict, { username: user.row.username, password: user.password }, '10.0.4.2'))
        .statusCode,
    ).toBe(200);
  });

  it('ignores X-Forwarded-For without trust_proxy', async () => {
    const user = await strict.createUser();
    for (let i = 0; i < 4; i++) {
      const res = await attempt(
        strict,
        { username: `ghost-${i}`, password: 'wrong-password' },
        '10.0.5.1',
        `203.0.113.${i}`,
      );
      expect(res.statusCode).toBe(401);
    }
    const res = await attempt(
      strict,
      { username: user.row.username, password: user.password },
      '10.0.5.1',
      '203.0.113.99',
    );
    expect(res.statusCode).toBe(429);
  });

  it('takes the client address from X-Forwarded-For set by a trusted proxy', async () => {
    const user = await proxied.createUser();
    for (let i = 0; i < 4; i++) {
      const res = await attempt(
        proxied,
        { username: `ghost-${i}`, password: 'wrong-password' },
        '127.0.0.1',
        '203.0.113.1',
      );
      expect(res.statusCode).toBe(401);
    }
    const blocked = await attempt(
      proxied,
      { username: user.row.username, password: user.password },
      '127.0.0.1',
      '203.0.113.1',
    );
    expect(blocked.statusCode).toBe(429);
    // Another client behind the same proxy is not blocked.
    const res = await attempt(
      proxied,
      { username: user.row.username, password: user.password },
      '127.0.0.1',
      '203.0.113.2',
    );
    expect(res.statusCode).toBe(200);
  });
});

describe('trusted devices', () => {
  /** Default limits: 5 failed logins per account, 20 per address. */
  let app: TestApp;
  beforeAll(async () => {
    app = await createTestApp();
  });
  afterAll(() => app.close());

  const attempt = (fields: { username: string; password: string }, remoteAddress: string, device?: string) =>
    loginFrom(app, fields, remoteAddress, device === undefined ? {} : { cookie: `cc_device=${device}` });
  const creds = (u: { row: { username: string }; password: string }) => ({
    username: u.row.username,
    password: u.password,
  });
  /** The device cookie a login set. */
  const deviceOf = (res: Awaited<ReturnType<typeof attempt>>) =>
    res.cookies.find((c) => c.name === 'cc_device');
  /** Someone elsewhere guesses wrong until the account is locked for every client it does not trust. */
  const lockOut = async (username: string, address: string) => {
    for (let i = 0; i < 5; i++)
      expect((await attempt({ username, password: 'guess-' + i }, address)).statusCode).toBe(401);
    expect((await attempt({ username, password: 'guess-5' }, address)).statusCode).toBe(429);
  };

  it('a lockout made by someone guessing elsewhere does not lock the user out of the browser they logged in on', async () => {
    const owner = await app.createUser();
    const first = await attempt(creds(owner), '10.0.7.1');
    expect(first.statusCode).toBe(200);
    const cookie = deviceOf(first)!;
    expect(cookie).toMatchObject({ httpOnly: true, sameSite: 'Strict', path: '/api/auth/login' });
    expect(cookie.maxAge).toBeGreaterThanOrEqual(180 * 24 * 60 * 60);

    await lockOut(owner.row.username, '10.0.7.66');
    // Any other client, even with the right password, is refused for the window...
    expect((await attempt(creds(owner), '10.0.7.1')).statusCode).toBe(429);
    // ...but the owner's browser logs in, and gets its cookie renewed.
    const again = await attempt(creds(owner), '10.0.7.1', cookie.value);
    expect(again.statusCode).toBe(200);
    expect(deviceOf(again)!.value).not.toBe(cookie.value);
    expect((await attempt(creds(owner), '10.0.7.2', deviceOf(again)!.value)).statusCode).toBe(200);
  });

  it('trusts a browser only for the accounts that logged in on it, and not a forged cookie', async () => {
    const [a, b] = [await app.createUser(), await app.createUser()];
    const device = deviceOf(await attempt(creds(a), '10.0.8.1'))!.value;
    await lockOut(b.row.username, '10.0.8.66');
    expect((await attempt(creds(b), '10.0.8.1', device)).statusCode).toBe(429);

    await lockOut(a.row.username, '10.0.8.67');
    const [nonce, mac] = device.split('.') as [string, string];
    const flipped = mac.slice(0, -1) + (mac.endsWith('A') ? 'B' : 'A');
    for (const forged of [`${nonce}.${flipped}`, `${nonce.slice(0, -1)}x.${mac}`, 'junk', `${device}.extra`])
      expect([forged, (await attempt(creds(a), '10.0.8.1', forged)).statusCode]).toEqual([forged, 429]);
    expect((await attempt(creds(a), '10.0.8.1', device)).statusCode).toBe(200);
  });

  it("a trusted browser's failures count against that browser, and a shared browser keeps each account's trust", async () => {
    const [a, b] = [await app.createUser(), await app.createUser()];
    let device = deviceOf(await attempt(creds(a), '10.0.9.1'))!.value;
    device = deviceOf(await attempt(creds(b), '10.0.9.1', device))!.value;
    for (let i = 0; i < 5; i++)
      expect(
        (await attempt({ username: a.row.username, password: 'typo-' + i }, '10.0.9.1', device)).statusCode,
      ).toBe(401);
    expect((await attempt(creds(a), '10.0.9.1', device)).statusCode).toBe(429);
    // The account was not locked by them for anyone else; b's trust on the same browser is its own.
    expect((await attempt(creds(a), '10.0.9.2')).statusCode).toBe(200);
    await lockOut(b.row.username, '10.0.9.66');
    expect((await attempt(creds(b), '10.0.9.1', device)).statusCode).toBe(200);
  });
});

describe('sessions', () => {
  it('logout revokes the session server-side', async () => {
    const cookie = await t.login(ADMIN.username, ADMIN.password);
    const out = await t.app.inject({ method: 'POST', url: '/api/auth/logout', headers: { cookie } });
    expect(out.statusCode).toBe(200);
    expect(out.cookies.find((c) => c.name === 'cc_session')?.value).toBe('');
    const me = await t.app.inject({ url: '/api/user/me', headers: { cookie } });
    expect(me.statusCode).toBe(401);
    expect(me.json().code).toBe(10401);
  });

  it('a missing or forged session gets 10401', async () => {
    for (const headers of [{}, { cookie: 'cc_session=forged-token' }]) {
      const res = await t.app.inject({ url: '/api/user/me', headers });
      expect(res.statusCode).toBe(401);
      expect(res.json().code).toBe(10401);
    }
  });

  it('a session expires after jwt_lifetime_seconds', async () => {
    const cookie = await t.login(ADMIN.username, ADMIN.password);
    await t.ctx.dbHandle.db
      .updateTable('sessions')
      .set({ expires_at: new Date(Date.now() - 1000).toISOString() })
      .execute();
    const res = await t.app.inject({ url: '/api/user/me', headers: { cookie } });
    expect(res.json().code).toBe(10401);
  });

  it('refuses state-changing requests from a foreign Origin', async () => {
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/auth/login',
      ...form({ ...ADMIN }),
      headers: { 'content-type': 'application/x-www-form-urlencoded', origin: 'https://evil.example' },
    });
    expect(res.statusCode).toBe(403);
    expect(res.json().code).toBe(10403);
  });
});

describe('origins', () => {
  afterEach(() => vi.unstubAllEnvs());
  /** The message of a state-changing request from `origin` (no session: an allowed origin gets to 10401). */
  const from = async (origin: string, host: string) =>
    (await t.app.inject({ method: 'POST', url: '/api/auth/logout', headers: { origin, host } })).json()
      .message;

  it('trusts the dev servers (localhost, 127.0.0.1 on 8000 and 5173) only when NODE_ENV is development', async () => {
    const dev = [
      'http://localhost:8000',
      'http://127.0.0.1:8000',
      'http://localhost:5173',
      'http://127.0.0.1:5173',
    ];
    for (const mode of ['production', 'test']) {
      vi.stubEnv('NODE_ENV', mode);
      for (const origin of dev)
        expect([mode, origin, await from(origin, 'chat.lan')]).toEqual([
          mode,
          origin,
          'errors.originNotAllowed',
        ]);
    }
    vi.stubEnv('NODE_ENV', 'development');
    for (const origin of dev)
      expect([origin, await from(origin, 'chat.lan')]).toEqual([origin, 'errors.userNotLogin']);
    expect(await from('http://localhost:3000', 'chat.lan')).toBe('errors.originNotAllowed');
  });

  it("always trusts the page's own origin", async () => {
    vi.stubEnv('NODE_ENV', 'production');
    expect(await from('http://chat.lan:8000', 'chat.lan:8000')).toBe('errors.userNotLogin');
    expect(await from('http://127.0.0.1:8000', '127.0.0.1:8000')).toBe('errors.userNotLogin');
    expect(await from('http://chat.lan:8000', 'other.lan:8000')).toBe('errors.originNotAllowed');
  });

  it('refuses an Origin no browser writes (a user part, capitals, a path) and a plain-http page on an https site', async () => {
    vi.stubEnv('NODE_ENV', 'production');
    for (const origin of [
      'http://user@chat.lan:8000',
      'HTTP://chat.lan:8000',
      'http://chat.lan:8000/x',
      'null',
    ])
      expect([origin, await from(origin, 'chat.lan:8000')]).toEqual([origin, 'errors.originNotAllowed']);
    const proxied = await createTestApp({ http: { trust_proxy: ['127.0.0.1'] } });
    try {
      const behindTls = async (origin: string) =>
        (
          await proxied.app.inject({
            method: 'POST',
            url: '/api/auth/logout',
            headers: { origin, host: 'chat.example', 'x-forwarded-proto': 'https' },
          })
        ).json().message;
      expect(await behindTls('http://chat.example')).toBe('errors.originNotAllowed');
      expect(await behindTls('https://chat.example')).toBe('errors.userNotLogin');
      // An https page on a site the server sees as http: a TLS proxy it was not told about.
      expect(await from('https://chat.lan', 'chat.lan')).toBe('errors.userNotLogin');
    } finally {
      await proxied.close();
    }
  });
});

describe('session cookie', () => {
  let proxied: TestApp;
  beforeAll(async () => {
    proxied = await createTestApp({ http: { trust_proxy: ['127.0.0.1'] } });
  });
  afterAll(() => proxied.close());

  /** The session cookie of a login and of the logout after it, with or without X-Forwarded-Proto. */
  async function cookies(app: TestApp, forwardedProto?: string) {
    const proto = forwardedProto ? { 'x-forwarded-proto': forwardedProto } : {};
    const login = await app.app.inject({
      method: 'POST',
      url: '/api/auth/login',
      ...form({ ...ADMIN }),
      headers: { 'content-type': 'application/x-www-form-urlencoded', ...proto },
    });
    expect(login.statusCode).toBe(200);
    const logout = await app.app.inject({
      method: 'POST',
      url: '/api/auth/logout',
      headers: { cookie: sessionCookie(login), ...proto },
    });
    expect(logout.statusCode).toBe(200);
    const pick = (res: typeof login) => res.cookies.find((c) => c.name === 'cc_session');
    return { set: pick(login), cleared: pick(logout) };
  }

  it('is Secure over HTTPS through a trusted proxy, on login and on logout', async () => {
    const { set, cleared } = await cookies(proxied, 'https');
    expect(set).toMatchObject({ secure: true, httpOnly: true, sameSite: 'Lax', path: '/' });
    expect(cleared).toMatchObject({ value: '', secure: true, httpOnly: true, sameSite: 'Lax', path: '/' });
  });

  it('is not Secure over plain HTTP, nor when an untrusted client claims HTTPS', async () => {
    for (const [app, proto] of [
      [proxied, undefined],
      [proxied, 'http'],
      [t, 'https'],
    ] as const) {
      const { set, cleared } = await cookies(app, proto);
      expect(set?.secure).toBeFalsy();
      expect(set).toMatchObject({ httpOnly: true, sameSite: 'Lax' });
      expect(cleared?.secure).toBeFalsy();
    }
  });
});
