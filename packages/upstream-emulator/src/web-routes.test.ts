/* eslint-disable @typescript-eslint/no-explicit-any -- tests read untyped JSON bodies and events */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startEmulator } from './index';
import type { Emulator } from './index';
import { finalMessages, webAsk } from './test-helpers';

let emu: Emulator;
let base: string;

beforeAll(async () => {
  emu = await startEmulator();
  base = emu.webBaseUrl;
});
afterAll(() => emu.close());
beforeEach(() => emu.reset());

function patch(path: string, body: unknown): Promise<Response> {
  return fetch(`${base}${path}`, {
    method: 'PATCH',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
}

async function json(path: string): Promise<any> {
  const res = await fetch(`${base}${path}`);
  expect(res.status).toBe(200);
  return res.json();
}

describe('conversation list, rename and hide', () => {
  it('pages the list newest first, with ISO times', async () => {
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) ids.push((await webAsk(base, `conversation number ${i}`)).conversationId);
    const page1 = await json('conversations?offset=0&limit=2');
    expect(page1).toMatchObject({ total: 5, limit: 2, offset: 0 });
    expect(page1.items.map((c: any) => c.id)).toEqual([ids[4], ids[3]]);
    const item = page1.items[0];
    expect(item.title).toBe('Conversation Number 4');
    expect(item.create_time).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}\+00:00$/);
    expect(item.update_time).toMatch(/^\d{4}-\d\d-\d\dT/);
    const page3 = await json('conversations?offset=4&limit=2');
    expect(page3.items.map((c: any) => c.id)).toEqual([ids[0]]);
    const page4 = await json('conversations?offset=6&limit=2');
    expect(page4.items).toEqual([]);
  });

  it('renames and hides one conversation; hidden ones are gone from list and get', async () => {
    const a = await webAsk(base, 'first');
    const b = await webAsk(base, 'second');
    expect((await patch(`conversation/${a.conversationId}`, { title: 'Renamed' })).status).toBe(200);
    expect((await json(`conversation/${a.conversationId}`)).title).toBe('Renamed');

    const hide = await patch(`conversation/${b.conversationId}`, { is_visible: false });
    expect(await hide.json()).toEqual({ success: true });
    const list = await json('conversations');
    expect(list.total).toBe(1);
    expect(list.items.map((c: any) => c.id)).toEqual([a.conversationId]);
    expect((await fetch(`${base}conversation/${b.conversationId}`)).status).toBe(404);
    const ask = await webAsk(base, 'more', { conversationId: b.conversationId, parentId: 'x' });
    expect(ask.status).toBe(404);
    expect((await patch('conversation/unknown-id', { is_visible: false })).status).toBe(404);
  });

  it('hides all conversations', async () => {
    await webAsk(base, 'one');
    await webAsk(base, 'two');
    expect((await patch('conversations', { is_visible: false })).status).toBe(200);
    expect(await json('conversations')).toMatchObject({ items: [], total: 0 });
  });

  it('gen_title returns a deterministic title and stores it', async () => {
    const r = await webAsk(base, 'Explain the borrow checker in Rust');
    await patch(`conversation/${r.conversationId}`, { title: 'tmp' });
    const last = finalMessages(r.snapshots)[1];
    const res = await fetch(`${base}conversation/gen_title/${r.conversationId}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ message_id: last.id }),
    });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ title: 'Explain The Borrow Checker In Rust' });
    expect((await json(`conversation/${r.conversationId}`)).title).toBe('Explain The Borrow Checker In Rust');
    const bad = await fetch(`${base}conversation/gen_title/${r.conversationId}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ message_id: 'nope' }),
    });
    expect(bad.status).toBe(404);
  });
});

describe('interpreter', () => {
  it('reports kernel state and gives sandbox download URLs', async () => {
    const plain = await webAsk(base, 'no code here');
    expect(await json(`conversation/${plain.conversationId}/interpreter`)).toEqual({
      kernel_started: false,
      time_remaining_ms: 0,
    });
    const r = await webAsk(base, '#code');
    const final = finalMessages(r.snapshots).at(-1);
    const q = new URLSearchParams({ message_id: final.id, sandbox_path: '/mnt/data/squares.png' });
    const dl = await json(`conversation/${r.conversationId}/interpreter/download?${q.toString()}`);
    expect(dl.status).toBe('success');
    expect(dl.download_url).toMatch(new RegExp(`^${emu.url}/blob/file-`));
    const bytes = Buffer.from(await (await fetch(dl.download_url)).arrayBuffer());
    expect(bytes.subarray(1, 4).toString()).toBe('PNG');
    const missing = await fetch(
      `${base}conversation/${r.conversationId}/interpreter/download?message_id=nope&sandbox_path=/mnt/data/x`,
    );
    expect(missing.status).toBe(404);
    expect(await missing.json()).toMatchObject({ status: 'error' });
  });
});

describe('plugins', () => {
  it('lists the approved catalogue with full manifests, filters and pages it', async () => {
    const all = await json('aip/p/approved?offset=0&limit=0&category=&search=');
    expect(all.count).toBe(6);
    expect(all.items).toHaveLength(6);
    for (const p of all.items) {
      expect(p).toMatchObject({
        id: expect.any(String),
        namespace: expect.any(String),
        domain: expect.any(String),
        status: 'approved',
        user_settings: { is_authenticated: expect.any(Boolean), is_installed: expect.any(Boolean) },
      });
      expect(Object.keys(p.manifest).sort()).toEqual(
        [
          'api',
          'auth',
          'contact_email',
          'description_for_human',
          'description_for_model',
          'legal_info_url',
          'logo_url',
          'name_for_human',
          'name_for_model',
          'schema_version',
        ].sort(),
      );
      expect(p.categories.length).toBeGreaterThan(0);
      expect(p).toHaveProperty('oauth_client_id');
    }
    const page = await json('aip/p/approved?offset=2&limit=2');
    expect(page.count).toBe(6);
    expect(page.items.map((p: any) => p.id)).toEqual(all.items.slice(2, 4).map((p: any) => p.id));
    const searched = await json('aip/p/approved?search=weather');
    expect(searched.items.map((p: any) => p.namespace)).toEqual(['weather_now']);
    const category = await json('aip/p/approved?category=lifestyle');
    expect(category.items.every((p: any) => p.categories.some((c: any) => c.id === 'lifestyle'))).toBe(true);
  });

  it('installs and uninstalls plugins', async () => {
    const before = await json('aip/p?offset=0&limit=250&is_installed=true');
    expect(before.items.length).toBe(2);
    const target = (await json('aip/p/approved')).items.find((p: any) => !p.user_settings.is_installed);
    const res = await patch(`aip/p/${target.id}/user-settings`, { is_installed: true });
    expect(res.status).toBe(200);
    const updated: any = await res.json();
    expect(updated.id).toBe(target.id);
    expect(updated.user_settings.is_installed).toBe(true);
    const after = await json('aip/p?offset=0&limit=250&is_installed=true');
    expect(after.items.map((p: any) => p.id)).toContain(target.id);
    await patch(`aip/p/${target.id}/user-settings`, { is_installed: false });
    expect((await json('aip/p?offset=0&limit=250&is_installed=true')).items.length).toBe(2);
    expect((await patch('aip/p/nope/user-settings', { is_installed: true })).status).toBe(404);
  });
});

describe('account check', () => {
  it('returns personal and team accounts', async () => {
    const body = await json('accounts/check/v4-2023-04-27');
    expect(body.account_ordering).toHaveLength(2);
    const accounts = body.account_ordering.map((id: string) => body.accounts[id]);
    expect(accounts.map((a: any) => a.account.structure)).toEqual(['personal', 'workspace']);
    const team = accounts[1];
    expect(team.account).toMatchObject({
      account_user_role: 'account-owner',
      plan_type: 'team',
      is_deactivated: false,
      account_id: body.account_ordering[1],
    });
    expect(team.entitlement).toMatchObject({
      has_active_subscription: true,
      subscription_plan: 'chatgptteamplan',
    });
    expect(Array.isArray(team.features)).toBe(true);
    expect(typeof team.is_eligible_for_yearly_plus_subscription).toBe('boolean');
  });
});

describe('auth and errors', () => {
  it('requires the configured access token on backend-api only', async () => {
    const secured = await startEmulator({ webAccessToken: 'tok-123', apiKey: 'sk-test' });
    try {
      const denied = await fetch(`${secured.webBaseUrl}conversations`);
      expect(denied.status).toBe(401);
      const wrong = await fetch(`${secured.webBaseUrl}conversations`, {
        headers: { authorization: 'Bearer nope' },
      });
      expect(wrong.status).toBe(401);
      const ok = await fetch(`${secured.webBaseUrl}conversations`, {
        headers: { authorization: 'Bearer tok-123' },
      });
      expect(ok.status).toBe(200);
      const r = await webAsk(secured.webBaseUrl, 'hi', { headers: { authorization: 'Bearer tok-123' } });
      expect(r.raw.at(-1)).toBe('[DONE]');
      // The web token does not open the API.
      const api = await fetch(`${secured.apiBaseUrl}models`, {
        headers: { authorization: 'Bearer tok-123' },
      });
      expect(api.status).toBe(401);
      const apiOk = await fetch(`${secured.apiBaseUrl}models`, {
        headers: { authorization: 'Bearer sk-test' },
      });
      expect(apiOk.status).toBe(200);
    } finally {
      await secured.close();
    }
  });

  it('answers 422 to a malformed ask and 404 to unknown routes', async () => {
    const res = await fetch(`${base}conversation`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ action: 'next', model: 'gpt-4', parent_message_id: 'p', messages: [] }),
    });
    expect(res.status).toBe(422);
    expect((await fetch(`${base}nowhere`)).status).toBe(404);
  });
});
