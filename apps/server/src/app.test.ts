import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp } from './test/harness';
import type { TestApp } from './test/harness';

describe('HTTPS-only security headers', () => {
  let direct: TestApp;
  let proxied: TestApp;
  beforeAll(async () => {
    direct = await createTestApp();
    proxied = await createTestApp({ http: { trust_proxy: ['127.0.0.1'] } });
  });
  afterAll(async () => {
    await direct.close();
    await proxied.close();
  });

  const headersOf = async (t: TestApp, forwardedProto?: string) => {
    const res = await t.app.inject({
      method: 'GET',
      url: '/api/healthz',
      headers: forwardedProto ? { 'x-forwarded-proto': forwardedProto } : {},
    });
    expect(res.statusCode).toBe(200);
    return {
      csp: String(res.headers['content-security-policy']),
      hsts: res.headers['strict-transport-security'],
    };
  };

  it('plain HTTP (a LAN address) gets neither HSTS nor upgrade-insecure-requests, the rest of the CSP stays', async () => {
    const plain = await headersOf(direct);
    expect(plain.hsts).toBeUndefined();
    expect(plain.csp).not.toContain('upgrade-insecure-requests');
    expect(plain.csp).toContain("default-src 'self'");
    expect(plain.csp).toContain("frame-ancestors 'none'");
    // Without trust_proxy a client's X-Forwarded-Proto changes nothing.
    expect(await headersOf(direct, 'https')).toEqual(plain);
    const proxiedPlain = await headersOf(proxied);
    expect(proxiedPlain.hsts).toBeUndefined();
    expect(proxiedPlain.csp).not.toContain('upgrade-insecure-requests');
    expect(await headersOf(proxied, 'http')).toEqual(proxiedPlain);
  });

  it('HTTPS through a trusted proxy gets both', async () => {
    const secure = await headersOf(proxied, 'https');
    expect(secure.hsts).toMatch(/^max-age=\d+; includeSubDomains$/);
    expect(secure.csp).toContain('upgrade-insecure-requests');
    expect(secure.csp).toContain("default-src 'self'");
    expect(secure.csp).toContain("frame-ancestors 'none'");
  });
});

describe('Content-Security-Policy sources', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp({ http: { trust_proxy: ['127.0.0.1'] } });
  });
  afterAll(() => t.close());

  const sourcesOf = async (directive: string, forwardedProto?: string) => {
    const res = await t.app.inject({
      method: 'GET',
      url: '/api/healthz',
      headers: forwardedProto ? { 'x-forwarded-proto': forwardedProto } : {},
    });
    const csp = String(res.headers['content-security-policy']);
    return new RegExp(`(?:^|;)\\s*${directive} ([^;]*)`).exec(csp)?.[1]?.trim().split(/\s+/);
  };

  it("allows the page's own images, data:, blob: and https (click-to-load), never plain http or any scheme", async () => {
    for (const proto of [undefined, 'https']) {
      const sources = await sourcesOf('img-src', proto);
      expect(sources).toEqual(["'self'", 'data:', 'blob:', 'https:']);
      expect(sources).not.toContain('http:');
      expect(sources).not.toContain('*');
    }
  });

  it("connects to the page's own host (its websocket included) and the upload hosts, no other websocket host", async () => {
    for (const proto of [undefined, 'https']) {
      const sources = (await sourcesOf('connect-src', proto))!;
      expect(sources[0]).toBe("'self'");
      for (const any of ['ws:', 'wss:', 'http:', 'https:', '*']) expect(sources).not.toContain(any);
      for (const host of sources.slice(1)) expect(host).toMatch(/^https?:\/\/[^/]+$/);
    }
  });
});

describe('the chat socket route asked without an upgrade', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(() => t.close());

  it('answers like any unknown API path: the 404 envelope, with the security headers', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/api/chat' });
    expect(res.statusCode).toBe(404);
    expect(res.json()).toEqual({ code: 404, message: 'errors.notFound', result: 'GET /api/chat' });
    expect(res.headers['x-content-type-options']).toBe('nosniff');
    expect(String(res.headers['content-security-policy'])).toContain("default-src 'self'");
  });
});
