import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN, createTestApp } from '../test/harness';
import type { TestApp } from '../test/harness';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp({}, (app) => {
    app.get('/api/test-boom', { config: { access: 'public' } }, () => {
      throw new Error('secret internal detail');
    });
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

  it('malformed JSON → 400 envelope', async () => {
    const cookie = await t.login(ADMIN.username, ADMIN.password);
    const res = await t.app.inject({
      method: 'PATCH',
      url: '/api/user/me',
      headers: { cookie, 'content-type': 'application/json' },
      payload: '{"nickname": ',
    });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ code: 400, message: 'errors.invalidRequest' });
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
