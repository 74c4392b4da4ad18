import type { Emulator } from '@cc/upstream-emulator';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AskResponse } from '@cc/contracts';
import { conversationRepository } from '../repositories/conversation.repository';
import { taskRepository } from '../repositories/task.repository';
import { syncOpenaiWebConversations } from './conversation-sync.service';
import { updateUserSettings } from './user.service';
import { joinSettings } from '../presenters/user.presenter';
import { SYNC_TASK } from '../tasks/builtin';
import { apiAsk, ask } from '../test/chat-client';
import { ADMIN, createTestApp, insertConversation } from '../test/harness';
import type { TestApp } from '../test/harness';

let t: TestApp;
let url: string;
let admin: string;
let emulator: Emulator;
let owner: { id: number; cookie: string };

beforeAll(async () => {
  t = await createTestApp();
  url = await t.app.listen({ host: '127.0.0.1', port: 0 });
  admin = await t.login(ADMIN.username, ADMIN.password);
  emulator = t.ctx.demo!.emulator;
  const o = await t.createUser();
  // The tests open more web conversations than the default per-minute limit allows.
  const settings = joinSettings(o.setting, o.counters);
  settings.openai_web.rate_limits = [];
  await updateUserSettings(t.ctx, o.row.id, settings);
  owner = { id: o.row.id, cookie: await t.login(o.row.username, o.password) };
});
afterAll(() => t.close());

async function webConversation(title: string): Promise<string> {
  const r = await ask(
    url,
    {
      source: 'openai_web',
      model: 'gpt_3_5',
      new_conversation: true,
      text_content: 'hello',
      new_title: title,
    },
    { cookie: owner.cookie },
  );
  const f = r.frames.find((x): x is Extract<AskResponse, { type: 'message' }> => x.type === 'message');
  return f!.conversation_id;
}

/** Changes a conversation on the upstream account only (as someone using the account directly would). */
async function patchUpstream(id: string, body: object): Promise<void> {
  const res = await fetch(`${emulator.webBaseUrl}conversation/${id}`, {
    method: 'PATCH',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  expect(res.status).toBe(200);
}

/** Both sides empty: no upstream conversation, no local `openai_web` row. */
async function startClean(): Promise<void> {
  emulator.reset();
  const repo = conversationRepository(t.ctx.dbHandle.db);
  for (const c of await repo.list({ source: 'openai_web' })) await repo.delete(c.conversation_id);
}

async function validity(ids: string[]): Promise<number[]> {
  const repo = conversationRepository(t.ctx.dbHandle.db);
  return Promise.all(ids.map(async (id) => (await repo.findByUuid(id))!.is_valid));
}

const lastRun = async () => (await taskRepository(t.ctx.dbHandle.db).listRuns(SYNC_TASK, 1))[0];

const sync = () =>
  t.app.inject({
    method: 'POST',
    url: '/api/system/action/sync-openai-web-conv',
    headers: { cookie: admin },
  });

describe('openai_web conversation sync', () => {
  it('marks missing ones invalid, re-validates found ones, updates titles, inserts unknown ones unassigned', async () => {
    const repo = conversationRepository(t.ctx.dbHandle.db);
    const renamed = await webConversation('Local title');
    const hidden = await webConversation('Hidden upstream');
    const revived = await webConversation('Invalid locally');
    const upstreamOnly = await webConversation('Upstream only');
    const apiRow = await ask(url, apiAsk('api'), { cookie: owner.cookie });
    expect(apiRow.code).toBe(1000);

    await patchUpstream(renamed, { title: 'Renamed upstream' });
    await patchUpstream(hidden, { is_visible: false });
    await repo.update(revived, { is_valid: 0 });
    await repo.delete(upstreamOnly);

    const r = await sync();
    expect(r.statusCode).toBe(200);
    const summary = r.json().result;
    expect(summary).toMatchObject({ fetched: 3, invalidated: 1, inserted: 1 });
    expect(summary.updated).toBeGreaterThanOrEqual(2);

    expect(await repo.findByUuid(renamed)).toMatchObject({
      title: 'Renamed upstream',
      is_valid: 1,
      user_id: owner.id,
    });
    expect(await repo.findByUuid(hidden)).toMatchObject({ is_valid: 0, user_id: owner.id });
    expect(await repo.findByUuid(revived)).toMatchObject({ is_valid: 1 });
    expect(await repo.findByUuid(upstreamOnly)).toMatchObject({
      source: 'openai_web',
      title: 'Upstream only',
      is_valid: 1,
      user_id: null,
    });
    // API conversations are not the account's: untouched.
    expect((await repo.list({ source: 'openai_api' })).every((c) => c.is_valid === 1)).toBe(true);

    // The action is recorded as a manual run of the sync task.
    const [run] = await taskRepository(t.ctx.dbHandle.db).listRuns(SYNC_TASK, 1);
    expect(run).toMatchObject({
      trigger: 'manual',
      status: 'success',
      output: `fetched 3, updated ${summary.updated}, invalidated 1, inserted 1`,
    });

    // A second sync finds nothing to change.
    expect((await sync()).json().result).toEqual({
      fetched: 3,
      updated: 0,
      invalidated: 0,
      inserted: 0,
      valid: 3,
      missing: 0,
      stopped: null,
    });

    // The unassigned one shows in the admin filter and can be assigned.
    const unassigned = await t.app.inject({
      url: '/api/conv/all?unassigned=true&source=openai_web',
      headers: { cookie: admin },
    });
    expect(unassigned.json().result.map((c: { conversation_id: string }) => c.conversation_id)).toEqual([
      upstreamOnly,
    ]);
  });

  it('keeps a conversation begun here while the upstream listing was read, though the listing lacks it', async () => {
    await startClean();
    const listed = [await webConversation('Listed'), await webConversation('Also listed')];
    const running = syncOpenaiWebConversations(t.ctx);
    // Stored while the listing is on its way (an answer's first write), so the listing cannot hold it.
    const begun = await insertConversation(t.ctx, owner.id, { source: 'openai_web' });
    const summary = await running;
    expect(summary).toMatchObject({ fetched: 2, invalidated: 0, missing: 0 });
    expect(await validity([...listed, begun])).toEqual([1, 1, 1]);
  });

  it('changes nothing when the upstream cannot be listed', async () => {
    const repo = conversationRepository(t.ctx.dbHandle.db);
    const before = await repo.list({ source: 'openai_web' });
    const config = t.ctx.runtime.current();
    // Nothing listens on port 9 here: the list call fails before any row changes.
    await t.ctx.runtime.save({
      ...config,
      openai_web: { ...config.openai_web, chatgpt_base_url: 'http://127.0.0.1:9/backend-api/' },
    });
    try {
      const r = await sync();
      expect(r.statusCode).toBe(502);
      expect(r.json().message).toBe('errors.httpError');
      const [run] = await taskRepository(t.ctx.dbHandle.db).listRuns(SYNC_TASK, 1);
      expect(run).toMatchObject({ trigger: 'manual', status: 'failed' });
    } finally {
      await t.ctx.runtime.save(config);
    }
    expect(await repo.list({ source: 'openai_web' })).toEqual(before);
  });

  it('takes an empty upstream listing as no information: nothing changes and the run says so', async () => {
    await startClean();
    const ids = [await webConversation('Kept one'), await webConversation('Kept two')];
    // The upstream forgets everything (a restarted in-memory upstream, an account switched behind our back).
    emulator.reset();

    const r = await sync();
    expect(r.statusCode).toBe(200);
    expect(r.json().result).toEqual({
      fetched: 0,
      updated: 0,
      invalidated: 0,
      inserted: 0,
      valid: 2,
      missing: 2,
      stopped: 'upstream_empty',
    });
    expect(await validity(ids)).toEqual([1, 1]);
    expect(await lastRun()).toMatchObject({
      trigger: 'manual',
      status: 'success',
      output: 'stopped, nothing changed: the upstream listed no conversations while 2 are valid here',
    });

    // With nothing valid here, an empty listing is simply an empty account.
    const repo = conversationRepository(t.ctx.dbHandle.db);
    for (const id of ids) await repo.update(id, { is_valid: 0 });
    expect((await sync()).json().result).toMatchObject({ fetched: 0, valid: 0, stopped: null });
  });

  it('stops instead of invalidating more than half of the valid conversations at once', async () => {
    await startClean();
    const ids: string[] = [];
    for (const title of ['One', 'Two', 'Three', 'Four']) ids.push(await webConversation(title));
    for (const id of ids.slice(0, 3)) await patchUpstream(id, { is_visible: false });
    await patchUpstream(ids[3]!, { title: 'Renamed upstream' });

    const r = await sync();
    expect(r.statusCode).toBe(200);
    expect(r.json().result).toEqual({
      fetched: 1,
      updated: 0,
      invalidated: 0,
      inserted: 0,
      valid: 4,
      missing: 3,
      stopped: 'too_many_missing',
    });
    // Nothing at all was applied, not even the rename.
    expect(await validity(ids)).toEqual([1, 1, 1, 1]);
    expect((await conversationRepository(t.ctx.dbHandle.db).findByUuid(ids[3]!))!.title).toBe('Four');
    expect((await lastRun())!.output).toBe(
      'stopped, nothing changed: 3 of 4 valid conversations are missing upstream (more than half); ' +
        'invalidate them by hand if that is right',
    );

    // Exactly half is not more than half: the sync goes ahead.
    await patchUpstream(ids[0]!, { is_visible: true });
    expect((await sync()).json().result).toMatchObject({ invalidated: 2, missing: 2, stopped: null });
    expect(await validity(ids)).toEqual([1, 0, 0, 1]);
  });

  it('lets a few conversations go even when they are most of the valid ones', async () => {
    await startClean();
    const ids = [
      await webConversation('Mine'),
      await webConversation('Also mine'),
      await webConversation('Left'),
    ];
    // 2 of 3 is more than half, but below the minimum the guard starts at.
    await patchUpstream(ids[0]!, { is_visible: false });
    await patchUpstream(ids[1]!, { is_visible: false });
    expect((await sync()).json().result).toMatchObject({
      fetched: 1,
      invalidated: 2,
      valid: 3,
      stopped: null,
    });
    expect(await validity(ids)).toEqual([0, 0, 1]);
    expect((await lastRun())!.output).toMatch(/^fetched 1, updated \d+, invalidated 2, inserted 0$/);
  });
});
