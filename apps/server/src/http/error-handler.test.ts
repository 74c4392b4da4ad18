import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ERROR_DETAILS } from '@cc/contracts';
import { fail } from '../errors/app-error';
import { NoServerError, QueueTimeoutError } from '../errors/queue-errors';
import { UpstreamError, UpstreamNetworkError, UpstreamTimeout } from '../sources/errors';
import { ADMIN, createTestApp } from '../test/harness';
import type { TestApp } from '../test/harness';

/** Failures thrown by test routes, one per kind describeFailure knows. */
const THROWN: Record<string, () => Error> = {
  'rate-limited': () => fail.rateLimited(null, { seconds: 60, max: 5 }),
  'user-exists': () => fail.userAlreadyExists(ERROR_DETAILS.username, { username: 'ann' }),
  upstream: () => new UpstreamError(429, '{"error":{"message":"Rate limit reached for ann@example.com"}}'),
  'upstream-timeout': () => new UpstreamTimeout('UND_ERR_HEADERS_TIMEOUT'),
  network: () => new UpstreamNetworkError('UND_ERR_SOCKET other side closed', 'UND_ERR_SOCKET'),
  'queue-timeout': () => new QueueTimeoutError(),
  'no-server': () => new NoServerError('openai_web'),
};

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp({}, (app) => {
    app.get('/api/test-boom', { config: { access: 'public' } }, () => {
      throw new Error('secret internal detail');
    });
    for (const [name, make] of Object.entries(THROWN)) {
      app.get(`/api/test-fail/${name}`, { config: { access: 'public' } }, () => {
        throw make();
      });
    }
  });
});
afterAll(() => t.close());

describe('envelope and errors', () => {
  it('unknown /api path → 404 envelope, logged in or not', async () => {
    const cookie = await t.login(ADMIN.username, ADMIN.password);
    for (const headers of [{}, { cookie }]) {
      const res = await t.app.inject({ url: '/api/does-not-exist', headers });
      expect(res.statusCode).toBe(404);
      expect(res.json()).toMatchObject({ code: 404, message: 'errors.notFound' });
    }
  });

  it('unexpected errors → 500 envelope without internals, with a request id', async () => {
    const res = await t.app.inject({ url: '/api/test-boom' });
    expect(res.statusCode).toBe(500);
    expect(res.json()).toMatchObject({
      code: 500,
      message: 'errors.internal',
      result: { request_id: expect.any(String) },
    });
    expect(res.body).not.toContain('secret internal detail');
  });

  it("an undecodable URL → 400 envelope with the security headers, not Fastify's own error", async () => {
    for (const url of ['/api/conv/%zz', '/api/share/%E0%A4%A']) {
      const res = await t.app.inject({ url });
      expect(res.statusCode).toBe(400);
      expect(res.json()).toEqual({
        code: 400,
        message: 'errors.invalidRequest',
        result: ERROR_DETAILS.badUrl,
      });
      expect(res.headers['x-content-type-options']).toBe('nosniff');
      expect(res.headers['content-security-policy']).toContain("frame-ancestors 'none'");
    }
  });

  it('malformed JSON → 400 envelope', async () => {
    const cookie = await t.login(ADMIN.username, ADMIN.password);
    const res = await t.app.inject({
      method: 'PATCH',
      url: '/api/user/me',
      headers: { cookie, 'content-type': 'application/json' },
      payload: '{"nickname": ',
    });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toEqual({
      code: 400,
      message: 'errors.invalidRequest',
      result: ERROR_DETAILS.invalidJson,
    });
  });

  it('every failure kind: status, code, message key, params and a result with nothing internal', async () => {
    const get = async (name: string) => {
      const res = await t.app.inject({ url: `/api/test-fail/${name}` });
      expect(res.body).not.toMatch(/UND_ERR|window_seconds|ann@example/);
      return [res.statusCode, res.json()];
    };
    expect(await get('rate-limited')).toEqual([
      429,
      { code: 429, message: 'errors.rateLimited', result: null, params: { seconds: 60, max: 5 } },
    ]);
    expect(await get('user-exists')).toEqual([
      409,
      {
        code: 409,
        message: 'errors.userAlreadyExists',
        result: 'errors.detail.username',
        params: { username: 'ann' },
      },
    ]);
    expect(await get('upstream')).toEqual([
      429,
      { code: 429, message: 'errors.openai.429', result: 'Rate limit reached for ***@***' },
    ]);
    expect(await get('upstream-timeout')).toEqual([
      504,
      { code: 504, message: 'errors.timeout', result: null },
    ]);
    expect(await get('network')).toEqual([
      502,
      { code: 502, message: 'errors.httpError', result: ERROR_DETAILS.networkClosed },
    ]);
    expect(await get('queue-timeout')).toEqual([
      504,
      { code: 504, message: 'errors.queueTimeout', result: null },
    ]);
    expect(await get('no-server')).toEqual([
      500,
      { code: 500, message: 'errors.config', result: ERROR_DETAILS.noServerOnline },
    ]);
  });

  it('a validation failure lists the issues with their message keys or zod texts and types', async () => {
    const cookie = await t.login(ADMIN.username, ADMIN.password);
    const res = await t.app.inject({
      method: 'PATCH',
      url: '/api/user/me',
      headers: { cookie, 'content-type': 'application/json' },
      payload: JSON.stringify({ nickname: 42 }),
    });
    expect(res.statusCode).toBe(422);
    expect(res.json()).toMatchObject({
      code: 422,
      message: 'errors.invalidParams',
      result: { detail: [{ loc: ['body', 'nickname'], type: 'invalid_type' }] },
    });
  });

  it('serves the web app and its assets to anonymous visitors, with the SPA fallback', async () => {
    const { mkdtempSync, mkdirSync, writeFileSync } = await import('node:fs');
    const { tmpdir } = await import('node:os');
    const path = await import('node:path');
    const dist = mkdtempSync(path.join(tmpdir(), 'cc-dist-'));
    mkdirSync(path.join(dist, 'assets'));
    writeFileSync(path.join(dist, 'index.html'), '<!doctype html><div id="root"></div>');
    writeFileSync(path.join(dist, 'assets', 'app.js'), 'console.log(1)');
    const { buildApp } = await import('../app');
    const web = await buildApp(t.ctx, { webDist: dist });
    try {
      expect((await web.inject({ url: '/assets/app.js' })).statusCode).toBe(200);
      const page = await web.inject({ url: '/conversation' });
      expect([page.statusCode, page.body]).toEqual([200, expect.stringContaining('root')]);
      expect((await web.inject({ url: '/api/user/me' })).json().code).toBe(10401);
      expect((await web.inject({ url: '/api/nope' })).statusCode).toBe(404);
    } finally {
      await web.close();
    }
  });

  it('serves the compressed copies of the build (brotli, gzip) to browsers that accept them', async () => {
    const { mkdtempSync, mkdirSync, rmSync, writeFileSync } = await import('node:fs');
    const { tmpdir } = await import('node:os');
    const path = await import('node:path');
    const { brotliCompressSync, gzipSync, gunzipSync, brotliDecompressSync } = await import('node:zlib');
    const dist = mkdtempSync(path.join(tmpdir(), 'cc-dist-'));
    mkdirSync(path.join(dist, 'assets'));
    const html = `<!doctype html><div id="root">${'app '.repeat(400)}</div>`;
    const js = `console.log(${JSON.stringify('chunk '.repeat(400))})`;
    for (const [file, text] of [
      ['index.html', html],
      ['assets/app.js', js],
    ] as const) {
      writeFileSync(path.join(dist, file), text);
      writeFileSync(path.join(dist, `${file}.br`), brotliCompressSync(text));
      writeFileSync(path.join(dist, `${file}.gz`), gzipSync(text));
    }
    writeFileSync(path.join(dist, 'assets', 'plain.css'), 'body{color:red}');
    const { buildApp } = await import('../app');
    const web = await buildApp(t.ctx, { webDist: dist });
    try {
      const br = await web.inject({
        url: '/assets/app.js',
        headers: { 'accept-encoding': 'gzip, deflate, br' },
      });
      expect([br.statusCode, br.headers['content-encoding'], br.headers['content-type']]).toEqual([
        200,
        'br',
        expect.stringContaining('javascript'),
      ]);
      expect(String(br.headers.vary).toLowerCase()).toContain('accept-encoding');
      expect(br.headers['cache-control']).toContain('immutable');
      expect(brotliDecompressSync(br.rawPayload).toString()).toBe(js);
      const gz = await web.inject({ url: '/assets/app.js', headers: { 'accept-encoding': 'gzip' } });
      expect(gz.headers['content-encoding']).toBe('gzip');
      expect(gunzipSync(gz.rawPayload).toString()).toBe(js);
      const plain = await web.inject({ url: '/assets/app.js' });
      expect([plain.headers['content-encoding'], plain.body]).toEqual([undefined, js]);
      // A file without compressed copies is sent as it is; so is a client-side route's page, compressed.
      const css = await web.inject({ url: '/assets/plain.css', headers: { 'accept-encoding': 'br' } });
      expect([css.statusCode, css.headers['content-encoding'], css.body]).toEqual([
        200,
        undefined,
        'body{color:red}',
      ]);
      const page = await web.inject({ url: '/conversation', headers: { 'accept-encoding': 'br' } });
      expect([page.statusCode, page.headers['content-encoding']]).toEqual([200, 'br']);
      expect(brotliDecompressSync(page.rawPayload).toString()).toBe(html);
    } finally {
      await web.close();
      rmSync(dist, { recursive: true, force: true });
    }
  });

  it('/login is the login page of its own when the build has one, else the app', async () => {
    const { mkdtempSync, rmSync, writeFileSync } = await import('node:fs');
    const { tmpdir } = await import('node:os');
    const path = await import('node:path');
    const dist = mkdtempSync(path.join(tmpdir(), 'cc-web-'));
    writeFileSync(path.join(dist, 'index.html'), '<!doctype html><div id="root">app</div>');
    const { buildApp } = await import('../app');
    const appOnly = await buildApp(t.ctx, { webDist: dist });
    try {
      expect((await appOnly.inject({ url: '/login' })).body).toContain('app');
    } finally {
      await appOnly.close();
    }
    writeFileSync(path.join(dist, 'login.html'), '<!doctype html><div id="root">login</div>');
    const web = await buildApp(t.ctx, { webDist: dist });
    try {
      for (const url of ['/login', '/login?redirect=%2Fconversation']) {
        const page = await web.inject({ url });
        expect([page.statusCode, page.body, page.headers['cache-control']], url).toEqual([
          200,
          expect.stringContaining('login'),
          'no-cache',
        ]);
      }
      expect((await web.inject({ url: '/conversation' })).body).toContain('app');
    } finally {
      await web.close();
      rmSync(dist, { recursive: true, force: true });
    }
  });

  it('healthz answers without auth; docs are served', async () => {
    const h = await t.app.inject({ url: '/api/healthz' });
    expect(h.json()).toMatchObject({ code: 200, result: { status: 'ok' } });
    const docs = await t.app.inject({ url: '/api/docs/json' });
    expect(docs.statusCode).toBe(200);
    const spec = docs.json();
    expect(Object.keys(spec.paths)).toEqual(
      expect.arrayContaining(['/api/auth/login', '/api/user/me', '/api/user/{user_id}/setting']),
    );
  });
});
