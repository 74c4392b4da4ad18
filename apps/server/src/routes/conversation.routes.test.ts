import type { Emulator } from '@cc/upstream-emulator';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AskResponse } from '@cc/contracts';
import { ask } from '../test/chat-client';
import { ADMIN, createTestApp } from '../test/harness';
import type { TestApp } from '../test/harness';

let t: TestApp;
let url: string;
let admin: string;
let emulator: Emulator;
let owner: { id: number; name: string; cookie: string };
let other: { cookie: string };

beforeAll(async () => {
  t = await createTestApp();
  url = await t.app.listen({ host: '127.0.0.1', port: 0 });
  admin = await t.login(ADMIN.username, ADMIN.password);
  emulator = t.ctx.demo!.emulator;
  const o = await t.createUser();
  const x = await t.createUser();
  owner = { id: o.row.id, name: o.row.username, cookie: await t.login(o.row.username, o.password) };
  other = { cookie: await t.login(x.row.username, x.password) };
});
afterAll(() => t.close());

async function newConversation(
  source: 'openai_web' | 'openai_api',
  title?: string,
  cookie = owner.cookie,
): Promise<string> {
  const r = await ask(
    url,
    { source, model: 'gpt_3_5', new_conversation: true, text_content: 'hi there', new_title: title ?? '' },
    { cookie },
  );
  expect(r.code).toBe(1000);
  const f = r.frames.find((x): x is Extract<AskResponse, { type: 'message' }> => x.type === 'message');
  return f!.conversation_id;
}

const call = (method: 'GET' | 'PATCH' | 'DELETE', path: string, cookie: string) =>
  t.app.inject({ method, url: path, headers: { cookie } });

describe('conversations API', () => {
  it('renames locally and upstream (web), deletes (invalidates + hides upstream), refuses a second delete', async () => {
    const id = await newConversation('openai_web', 'First');
    const renamed = await call(
      'PATCH',
      `/api/conv/${id}?title=${encodeURIComponent('Second name')}`,
      owner.cookie,
    );
    expect(renamed.json().result).toMatchObject({ conversation_id: id, title: 'Second name' });
    await emulator.waitForRequest(
      (r) =>
        r.method === 'PATCH' &&
        r.path === `/backend-api/conversation/${id}` &&
        (r.body as { title?: string }).title === 'Second name',
    );

    expect((await call('DELETE', `/api/conv/${id}`, owner.cookie)).statusCode).toBe(200);
    await emulator.waitForRequest(
      (r) =>
        r.method === 'PATCH' &&
        r.path === `/backend-api/conversation/${id}` &&
        (r.body as { is_visible?: boolean }).is_visible === false,
    );
    const list = (await call('GET', '/api/conv', owner.cookie)).json().result as {
      conversation_id: string;
    }[];
    expect(list.map((c) => c.conversation_id)).not.toContain(id);
    const again = await call('DELETE', `/api/conv/${id}`, owner.cookie);
    expect(again.statusCode).toBe(409);
    expect(again.json().message).toBe('errors.conversationAlreadyDeleted');
    // Invalid conversations no longer count toward max_conv_count, and the admin still sees them.
    const all = (await call('GET', '/api/conv/all', admin)).json().result as {
      conversation_id: string;
      is_valid: boolean;
    }[];
    expect(all.find((c) => c.conversation_id === id)?.is_valid).toBe(false);
    const validOnly = (await call('GET', '/api/conv/all?valid_only=true', admin)).json().result as {
      conversation_id: string;
    }[];
    expect(validOnly.map((c) => c.conversation_id)).not.toContain(id);
  });

  it('a deleted conversation is gone for its owner; a superuser still reads it, from the local copy, and it stays deleted', async () => {
    const u = await t.createUser();
    const cookie = await t.login(u.row.username, u.password);
    const api = await newConversation('openai_api', 'Api gone', cookie);
    const web = await newConversation('openai_web', 'Web gone', cookie);
    for (const id of [api, web])
      expect((await call('DELETE', `/api/conv/${id}`, cookie)).statusCode).toBe(200);
    const gone = { code: 409, message: 'errors.conversationAlreadyDeleted' };
    for (const id of [api, web]) {
      expect((await call('GET', `/api/conv/${id}`, cookie)).json(), id).toMatchObject(gone);
      expect((await call('PATCH', `/api/conv/${id}?title=back`, cookie)).json()).toMatchObject(gone);
      expect((await call('GET', `/api/conv/${id}/export?format=json`, cookie)).json()).toMatchObject(gone);
      const node = await t.app.inject({
        method: 'PUT',
        url: `/api/conv/${id}/current-node`,
        headers: { cookie: cookie },
        payload: { current_node: 'x' },
      });
      expect(node.json()).toMatchObject(gone);
    }
    for (const id of [api, web]) {
      const read = await call('GET', `/api/conv/${id}`, admin);
      expect(read.statusCode, read.body).toBe(200);
      expect(Object.keys(read.json().result.mapping).length).toBeGreaterThan(0);
      const row = await t.ctx.dbHandle.db
        .selectFrom('conversations')
        .select(['is_valid', 'title'])
        .where('conversation_id', '=', id)
        .executeTakeFirstOrThrow();
      expect(row.is_valid).toBe(0);
      expect(row.title).not.toBe('back');
    }
  });

  it('a title is kept on one line without control or invisible characters; a blank one leaves it untitled', async () => {
    const id = await newConversation('openai_api', 'Plain');
    const rename = async (title: string) =>
      (await call('PATCH', `/api/conv/${id}?title=${encodeURIComponent(title)}`, owner.cookie)).json().result
        .title as string | null;
    expect(await rename(' \u202Etxt.exe\u0000 \n  report\u200B ')).toBe('txt.exe report');
    expect(await rename(' \u200B \t ')).toBeNull();
    const list = (await call('GET', '/api/conv', owner.cookie)).json().result as {
      conversation_id: string;
      title: string | null;
    }[];
    expect(list.find((c) => c.conversation_id === id)?.title).toBeNull();
  });

  it('vanish removes the row and its messages; assign moves a conversation to another user', async () => {
    const id = await newConversation('openai_api', 'Mine');
    const x = await t.createUser();
    const assigned = await call('PATCH', `/api/conv/${id}/assign/${x.row.username}`, admin);
    expect(assigned.json().result.user_id).toBe(x.row.id);
    expect((await call('GET', `/api/conv/${id}`, owner.cookie)).json().code).toBe(10403);
    const unknown = await call('PATCH', `/api/conv/${id}/assign/nobody-at-all`, admin);
    expect(unknown.json().message).toBe('errors.userNotExist');
    expect((await call('DELETE', `/api/conv/${id}/vanish`, admin)).statusCode).toBe(200);
    expect((await call('GET', `/api/conv/${id}`, admin)).json().message).toBe('errors.conversationNotFound');
    const left = await t.ctx.dbHandle.db
      .selectFrom('messages')
      .select('id')
      .where('conversation_id', '=', id)
      .execute();
    expect(left).toEqual([]);
  });

  it('gen_title returns the title; interpreter info comes from the upstream', async () => {
    const id = await newConversation('openai_web');
    const title = (await call('PATCH', `/api/conv/${id}/gen_title?message_id=x`, owner.cookie)).json().result;
    expect(typeof title).toBe('string');
    expect(title.length).toBeGreaterThan(0);
    const info = (await call('GET', `/api/conv/${id}/interpreter`, owner.cookie)).json().result;
    expect(info).toMatchObject({ kernel_started: expect.any(Boolean) });
    const apiConv = await newConversation('openai_api');
    expect((await call('GET', `/api/conv/${apiConv}/interpreter`, owner.cookie)).statusCode).toBe(422);
  });

  it("every conversation route refuses another user's conversation with 10403 and a missing one with 404", async () => {
    const id = await newConversation('openai_api');
    for (const [method, path] of [
      ['GET', `/api/conv/${id}`],
      ['PATCH', `/api/conv/${id}?title=x`],
      ['DELETE', `/api/conv/${id}`],
      ['PATCH', `/api/conv/${id}/gen_title?message_id=x`],
      ['GET', `/api/conv/${id}/interpreter`],
    ] as const) {
      const res = await call(method, path, other.cookie);
      expect(res.json().code, `${method} ${path}`).toBe(10403);
      const missing = await call(
        method,
        path.replace(id, '00000000-0000-4000-8000-000000000000'),
        owner.cookie,
      );
      expect(missing.json().message, `${method} ${path}`).toBe('errors.conversationNotFound');
    }
    expect((await call('GET', '/api/conv/not-a-uuid', owner.cookie)).statusCode).toBe(422);
  });

  it('an upstream 404 marks a web conversation invalid', async () => {
    const id = await newConversation('openai_web');
    emulator.reset();
    const res = await call('GET', `/api/conv/${id}`, owner.cookie);
    expect(res.json().message).toBe('errors.conversationNotFound');
    const row = await t.ctx.dbHandle.db
      .selectFrom('conversations')
      .select('is_valid')
      .where('conversation_id', '=', id)
      .executeTakeFirstOrThrow();
    expect(row.is_valid).toBe(0);
  });
});

describe('status and plugins', () => {
  it('common status counts active users and the shared GPT-4 use', async () => {
    const before = (await call('GET', '/api/status/common', owner.cookie)).json().result;
    expect(before).toMatchObject({
      active_user_in_5m: expect.any(Number),
      active_user_in_1h: expect.any(Number),
      active_user_in_1d: expect.any(Number),
      is_chatbot_busy: false,
      chatbot_waiting_count: 0,
      gpt4_count_in_3_hours: expect.any(Number),
    });
    expect(before.active_user_in_5m).toBeGreaterThanOrEqual(2);
  });

  it('lists installed plugins and toggles one (superuser)', async () => {
    const all = (await call('GET', '/api/chat/openai-plugins/all', owner.cookie)).json().result;
    const id = all.items[0].id as string;
    const toggled = await t.app.inject({
      method: 'PATCH',
      url: `/api/chat/openai-plugins/${id}/user-settings?plugin_id=${id}`,
      headers: { cookie: admin },
      payload: { is_installed: true },
    });
    expect(toggled.statusCode).toBe(200);
    const installed = (await call('GET', '/api/chat/openai-plugins/installed', owner.cookie)).json().result;
    expect(installed.items.map((p: { id: string }) => p.id)).toContain(id);
    expect((await call('GET', `/api/chat/openai-plugin/${id}`, owner.cookie)).json().result.id).toBe(id);
  });
});

describe('admin conversation table', () => {
  it('filters by owner, source, validity and title, pages with the total in x-total-count', async () => {
    const a = await newConversation('openai_api', 'Quarterly REPORT 100%');
    const b = await newConversation('openai_api', 'weekly report');
    const c = await newConversation('openai_web', 'Holiday plans');
    await call('DELETE', `/api/conv/${b}`, owner.cookie);
    const list = async (query: string) => {
      const r = await call('GET', `/api/conv/all?${query}`, admin);
      expect(r.statusCode).toBe(200);
      return {
        ids: (r.json().result as { conversation_id: string }[]).map((x) => x.conversation_id),
        total: Number(r.headers['x-total-count']),
      };
    };
    const reports = await list(`q=REPORT&username=${owner.name}`);
    expect(reports.ids.sort()).toEqual([a, b].sort());
    expect((await list('q=100%25')).ids).toEqual([a]);
    expect((await list('q=report&is_valid=false')).ids).toEqual([b]);
    expect((await list(`q=report&valid_only=true&user_id=${owner.id}`)).ids).toEqual([a]);
    expect((await list('source=openai_web&q=holiday')).ids).toEqual([c]);
    const all = await list(`username=${owner.name}`);
    const page = await list(`username=${owner.name}&limit=2&offset=1`);
    expect(page.ids).toEqual(all.ids.slice(1, 3));
    expect(page.total).toBe(all.ids.length);
    expect((await call('GET', '/api/conv/all?is_valid=maybe', admin)).statusCode).toBe(422);
  });

  it('bulk-invalidates, assigns and vanishes, reporting each failure', async () => {
    const web = await newConversation('openai_web', 'bulk web');
    const api = await newConversation('openai_api', 'bulk api');
    const missing = '00000000-0000-4000-8000-000000000000';
    const bulk = (payload: object) =>
      t.app.inject({ method: 'POST', url: '/api/conv/bulk', headers: { cookie: admin }, payload });

    const inv = (await bulk({ action: 'invalidate', conversation_ids: [web, api, missing] })).json().result;
    expect(inv.succeeded.sort()).toEqual([web, api].sort());
    expect(inv.failed).toEqual([{ conversation_id: missing, error: 'errors.conversationNotFound' }]);
    await emulator.waitForRequest(
      (r) =>
        r.method === 'PATCH' &&
        r.path === `/backend-api/conversation/${web}` &&
        (r.body as { is_visible?: boolean }).is_visible === false,
    );
    const again = (await bulk({ action: 'invalidate', conversation_ids: [api] })).json().result;
    expect(again.failed).toEqual([{ conversation_id: api, error: 'errors.conversationAlreadyDeleted' }]);

    const other = await t.createUser();
    const assigned = await bulk({
      action: 'assign',
      conversation_ids: [web, api],
      username: other.row.username,
    });
    expect(assigned.json().result).toEqual({ succeeded: [web, api], failed: [] });
    const mine = await t.app.inject({
      url: `/api/conv/all?user_id=${other.row.id}`,
      headers: { cookie: admin },
    });
    expect(mine.json().result).toHaveLength(2);
    expect((await bulk({ action: 'assign', conversation_ids: [web] })).statusCode).toBe(422);
    expect(
      (await bulk({ action: 'assign', conversation_ids: [web], username: 'nobody-here' })).statusCode,
    ).toBe(404);

    const vanished = (await bulk({ action: 'vanish', conversation_ids: [web, api] })).json().result;
    expect(vanished.succeeded).toHaveLength(2);
    expect((await call('GET', `/api/conv/${web}`, admin)).statusCode).toBe(404);
    expect((await bulk({ action: 'vanish', conversation_ids: [] })).statusCode).toBe(422);
  });
});
