import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getUser, updateUserSettings } from '../services/user.service';
import { joinSettings } from '../presenters/user.presenter';
import { ask } from '../test/chat-client';
import { createTestApp } from '../test/harness';
import type { TestApp } from '../test/harness';
import { ADDRESS_NOT_ALLOWED, assertPublicUrl, isPublicAddress, publicOnlyLookup } from './address-guard';

describe('isPublicAddress', () => {
  it('refuses loopback, link-local, private, unique-local, CGNAT and unspecified addresses', () => {
    for (const address of [
      '127.0.0.1',
      '10.1.2.3',
      '172.16.0.1',
      '192.168.1.10',
      '169.254.169.254',
      '100.64.0.1',
      '0.0.0.0',
      '::1',
      'fe80::1',
      'fd00::1',
      '::ffff:127.0.0.1',
      '::ffff:10.0.0.1',
      'not an address',
    ])
      expect([address, isPublicAddress(address)]).toEqual([address, false]);
    for (const address of ['8.8.8.8', '1.1.1.1', '2606:4700:4700::1111'])
      expect([address, isPublicAddress(address)]).toEqual([address, true]);
  });

  it('refuses a URL that names this machine or a private address, and a name that resolves to one', async () => {
    expect(() => assertPublicUrl('http://127.0.0.1:6379/v1')).toThrow(/not a public address/);
    expect(() => assertPublicUrl('http://[::1]:8080/')).toThrow(/not a public address/);
    expect(() => assertPublicUrl('http://LOCALHOST:8080/')).toThrow(/not a public address/);
    expect(() => assertPublicUrl('http://10.0.0.5/v1')).toThrow(/not a public address/);
    expect(() => assertPublicUrl('https://api.example.com/v1')).not.toThrow();
    // A name is judged by what it resolves to, at each connection.
    const err = await new Promise<NodeJS.ErrnoException | null>((resolve) =>
      publicOnlyLookup('localhost', {}, (e) => resolve(e)),
    );
    expect(err?.code).toBe(ADDRESS_NOT_ALLOWED);
  });
});

describe("a user's own API address", () => {
  // Records every connection: the refused ask must never reach it.
  let connections = 0;
  const upstream = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write(
        'data: {"choices":[{"delta":{"role":"assistant","content":"private hello"},"finish_reason":null}]}\n\n',
      );
      res.write('data: {"choices":[{"delta":{},"finish_reason":"stop"}]}\n\n');
      res.end('data: [DONE]\n\n');
    });
  });
  upstream.on('connection', () => (connections += 1));
  let t: TestApp;
  let url: string;

  beforeAll(async () => {
    t = await createTestApp({ openai_api: { custom_api_private_networks: false } });
    url = await t.app.listen({ host: '127.0.0.1', port: 0 });
    await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
  });
  afterAll(async () => {
    upstream.close();
    await t.close();
  });

  async function userWithOwnApi() {
    const u = await t.createUser();
    const s = joinSettings(u.setting, u.counters);
    s.openai_api.rate_limits = [];
    s.openai_api.total_ask_count = 5;
    s.openai_api.allow_custom_openai_api = true;
    const { port } = upstream.address() as AddressInfo;
    s.openai_api.custom_openai_api_settings = { url: `http://127.0.0.1:${port}/v1/`, key: 'sk-test' };
    await updateUserSettings(t.ctx, u.row.id, s);
    return { id: u.row.id, cookie: await t.login(u.row.username, u.password) };
  }
  const question = {
    source: 'openai_api',
    model: 'gpt_3_5',
    new_conversation: true,
    text_content: 'hi',
  } as const;

  it('cannot reach this machine or a private network: a clear error, nothing charged, no connection made', async () => {
    const u = await userWithOwnApi();
    const res = await ask(url, question, { cookie: u.cookie });
    expect(res.frames.pop()).toMatchObject({
      type: 'error',
      error_detail: 'errors.detail.networkAddressNotAllowed',
    });
    expect(connections).toBe(0);
    const loaded = await getUser(t.ctx, u.id);
    expect(joinSettings(loaded.setting, loaded.counters).openai_api.total_ask_count).toBe(5);
  });

  it('reaches it when the config allows private networks', async () => {
    const config = t.ctx.runtime.current();
    await t.ctx.runtime.save({
      ...config,
      openai_api: { ...config.openai_api, custom_api_private_networks: true },
    });
    try {
      const u = await userWithOwnApi();
      const res = await ask(url, question, { cookie: u.cookie });
      expect(res.code).toBe(1000);
      expect(connections).toBeGreaterThan(0);
    } finally {
      await t.ctx.runtime.save(config);
    }
  });
});
