import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ConversationRead, UserGroupWrite, UserReadAdmin, UserRef } from '@cc/contracts';
import { conversationRepository } from '../repositories/conversation.repository';
import { quotaRepository } from '../repositories/quota.repository';
import { createUser } from '../services/user.service';
import { ADMIN, createTestApp } from '../test/harness';
import type { TestApp } from '../test/harness';

let t: TestApp;
let admin: string;
let groupId: number;
const ids = new Map<string, number>();

async function get<T>(path: string): Promise<{ status: number; total: number | null; result: T }> {
  const res = await t.app.inject({ method: 'GET', url: path, headers: { cookie: admin } });
  const total = res.headers['x-total-count'];
  return {
    status: res.statusCode,
    total: total === undefined ? null : Number(total),
    result: res.json().result,
  };
}
const names = (users: { username: string }[]) => users.map((u) => u.username);

beforeAll(async () => {
  t = await createTestApp();
  admin = await t.login(ADMIN.username, ADMIN.password);
  const { openai_web, openai_api } = structuredClone(t.ctx.config.user_defaults);
  const { custom_openai_api_settings: _custom, ...api } = openai_api;
  const group: UserGroupWrite = { name: 'Interns', openai_web, openai_api: api };
  const created = await t.app.inject({
    method: 'POST',
    url: '/api/system/groups',
    headers: { cookie: admin },
    payload: group,
  });
  groupId = created.json().result.id;
  // 24 users: u00 … u23; every third is inactive; u05 has the remark "finance team".
  for (let i = 0; i < 24; i++) {
    const name = `u${String(i).padStart(2, '0')}`;
    const loaded = await createUser(t.ctx, {
      user: {
        username: name,
        nickname: `Nick ${23 - i}`,
        email: `${name}@example.com`,
        password: 'user-pass-1',
        is_active: i % 3 !== 0,
        is_superuser: false,
        is_verified: false,
        remark: i === 5 ? 'Finance team' : null,
      },
    });
    ids.set(name, loaded.row.id);
  }
  for (const name of ['u01', 'u02', 'u03']) {
    await t.app.inject({
      method: 'PATCH',
      url: `/api/user/${ids.get(name)}`,
      headers: { cookie: admin },
      payload: { group_id: groupId },
    });
  }
});
afterAll(() => t.close());

describe('GET /api/user: paged, searched and sorted on the server', () => {
  it('gives one page and the total of all that match in x-total-count', async () => {
    const first = await get<UserReadAdmin[]>('/api/user?limit=10');
    expect(first.status).toBe(200);
    expect(first.total).toBe(25);
    expect(names(first.result)).toEqual(['admin', ...Array.from({ length: 9 }, (_, i) => `u0${i}`)]);
    const third = await get<UserReadAdmin[]>('/api/user?limit=10&offset=20');
    expect(third.total).toBe(25);
    expect(names(third.result)).toEqual(['u19', 'u20', 'u21', 'u22', 'u23']);
    // Without a limit a page is 100 users.
    expect((await get<UserReadAdmin[]>('/api/user')).result).toHaveLength(25);
  });

  it('searches username, nickname, email and remark without regard to case, and the exact id', async () => {
    expect(names((await get<UserReadAdmin[]>('/api/user?q=FINANCE')).result)).toEqual(['u05']);
    expect(names((await get<UserReadAdmin[]>('/api/user?q=nick%2022')).result)).toEqual(['u01']);
    expect(names((await get<UserReadAdmin[]>('/api/user?q=u1')).result)).toHaveLength(10);
    const byId = await get<UserReadAdmin[]>(`/api/user?q=${ids.get('u07')}`);
    expect(names(byId.result)).toContain('u07');
    // LIKE wildcards are plain characters.
    expect((await get<UserReadAdmin[]>('/api/user?q=%25')).result).toEqual([]);
    expect((await get<UserReadAdmin[]>('/api/user?q=_')).result).toEqual([]);
  });

  it('filters by group, no group, active and superuser', async () => {
    const inGroup = await get<UserReadAdmin[]>(`/api/user?group=${groupId}`);
    expect(names(inGroup.result)).toEqual(['u01', 'u02', 'u03']);
    expect(inGroup.result.every((u) => u.group_id === groupId)).toBe(true);
    expect((await get<UserReadAdmin[]>('/api/user?group=none')).total).toBe(22);
    const inactive = await get<UserReadAdmin[]>('/api/user?active=false');
    expect(names(inactive.result)).toEqual(['u00', 'u03', 'u06', 'u09', 'u12', 'u15', 'u18', 'u21']);
    expect(names((await get<UserReadAdmin[]>('/api/user?superuser=true')).result)).toEqual(['admin']);
    expect(names((await get<UserReadAdmin[]>(`/api/user?group=${groupId}&active=true&q=u0`)).result)).toEqual(
      ['u01', 'u02'],
    );
  });

  it('sorts by username, last activity and group in both directions, ties by id', async () => {
    const desc = await get<UserReadAdmin[]>('/api/user?sort=username&order=desc&limit=3');
    expect(names(desc.result)).toEqual(['u23', 'u22', 'u21']);
    const byGroup = await get<UserReadAdmin[]>('/api/user?sort=group&order=desc&limit=3');
    expect(names(byGroup.result)).toEqual(['u03', 'u02', 'u01']);
    // Only the admin has been active (logged in): first when the most recent comes first.
    const active = await get<UserReadAdmin[]>('/api/user?sort=last_active&order=desc&limit=1');
    expect(names(active.result)).toEqual(['admin']);
  });

  it("shows each user's own counters on the page", async () => {
    const u04 = ids.get('u04')!;
    const u05 = ids.get('u05')!;
    await quotaRepository(t.ctx.dbHandle.db).replaceForUser(u04, [
      { source: 'openai_api', model: 'gpt_3_5', remaining: 7 },
    ]);
    await quotaRepository(t.ctx.dbHandle.db).replaceForUser(u05, [
      { source: 'openai_api', model: 'gpt_3_5', remaining: 2 },
    ]);
    const page = (await get<UserReadAdmin[]>('/api/user?q=u0&limit=50')).result;
    const count = (name: string) =>
      page.find((u) => u.username === name)?.setting.openai_api.per_model_ask_count.gpt_3_5;
    expect(count('u04')).toBe(7);
    expect(count('u05')).toBe(2);
  });

  it('refuses bad paging and filters with 422', async () => {
    for (const query of [
      'limit=0',
      'limit=1001',
      'offset=-1',
      'sort=password',
      'order=up',
      'group=x',
      'active=yes',
    ]) {
      expect((await get(`/api/user?${query}`)).status).toBe(422);
    }
  });

  it('GET /api/user/refs names every match (for "select all that match"), without settings', async () => {
    const refs = await get<UserRef[]>(`/api/user/refs?active=false`);
    expect(refs.status).toBe(200);
    expect(refs.result.map((r) => r.username)).toEqual([
      'u00',
      'u03',
      'u06',
      'u09',
      'u12',
      'u15',
      'u18',
      'u21',
    ]);
    expect(Object.keys(refs.result[0]!).sort()).toEqual(['id', 'nickname', 'username']);
    const picker = await get<UserRef[]>(`/api/user/refs?q=u1&limit=3`);
    expect(picker.result.map((r) => r.username)).toEqual(['u10', 'u11', 'u12']);
  });
});

describe('GET /api/conv/all: paged and sorted on the server with the owner named', () => {
  it('pages by 100 by default, sorts by title or creation time, and names the owner', async () => {
    const repo = conversationRepository(t.ctx.dbHandle.db);
    const owner = ids.get('u02')!;
    for (let i = 0; i < 105; i++) {
      const time = new Date(Date.UTC(2026, 0, 1, 0, i)).toISOString();
      await repo.insert({
        source: 'openai_api',
        conversation_id: `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`,
        title: `Talk ${String(104 - i).padStart(3, '0')}`,
        user_id: i === 0 ? null : owner,
        is_valid: 1,
        is_public: 0,
        current_node: null,
        server_id: null,
        plugin_ids: null,
        current_model: 'gpt_3_5',
        create_time: time,
        update_time: time,
      });
    }
    const first = await get<ConversationRead[]>('/api/conv/all');
    expect(first.result).toHaveLength(100);
    expect(first.total).toBe(105);
    expect(first.result[0]).toMatchObject({ title: 'Talk 000', username: 'u02' });
    const byTitle = await get<ConversationRead[]>('/api/conv/all?sort=title&order=asc&limit=2');
    expect(byTitle.result.map((c) => c.title)).toEqual(['Talk 000', 'Talk 001']);
    const oldest = await get<ConversationRead[]>('/api/conv/all?sort=create_time&order=asc&limit=1');
    expect(oldest.result[0]).toMatchObject({ title: 'Talk 104', user_id: null, username: null });
    expect((await get('/api/conv/all?sort=owner')).status).toBe(422);
  });
});
