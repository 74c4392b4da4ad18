import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AskResponse, UserGroupWrite, UserReadAdmin } from '@cc/contracts';
import { ask } from '../test/chat-client';
import { ADMIN, createTestApp } from '../test/harness';
import type { TestApp } from '../test/harness';

let t: TestApp;
let admin: string;
let url: string;
beforeAll(async () => {
  t = await createTestApp();
  admin = await t.login(ADMIN.username, ADMIN.password);
  url = await t.app.listen({ host: '127.0.0.1', port: 0 });
});
afterAll(() => t.close());

type Method = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
async function call(method: Method, path: string, payload?: object) {
  const res = await t.app.inject({ method, url: path, headers: { cookie: admin }, payload });
  return res.json<{ code: number; message: string; result: unknown }>();
}
const readUser = async (id: number) => (await call('GET', `/api/user/${id}`)).result as UserReadAdmin;

/** A template from the config's new-user defaults with the changes given. */
function template(name: string, change: (g: UserGroupWrite) => void = () => undefined): UserGroupWrite {
  const { openai_web, openai_api } = structuredClone(t.ctx.config.user_defaults);
  const { custom_openai_api_settings: _custom, ...api } = openai_api;
  const group: UserGroupWrite = { name, openai_web, openai_api: api };
  change(group);
  return group;
}

const errorTip = (frames: AskResponse[]) => frames.find((f) => f.type === 'error')?.tip ?? null;

describe('user groups', () => {
  it('creates, lists, refuses a taken or empty name, and records each change in the audit log', async () => {
    const created = await call('POST', '/api/system/groups', template('Engineering'));
    expect(created).toMatchObject({ code: 200, result: { name: 'Engineering', member_count: 0 } });
    const taken = await call('POST', '/api/system/groups', template('Engineering'));
    expect(taken).toMatchObject({ code: 409, message: 'errors.groupAlreadyExists' });
    const empty = await call('POST', '/api/system/groups', template('  '));
    expect(empty.code).toBe(422);
    const list = (await call('GET', '/api/system/groups')).result as { name: string }[];
    expect(list.map((g) => g.name)).toContain('Engineering');
    const id = (created.result as { id: number }).id;
    expect(await call('DELETE', `/api/system/groups/${id}`)).toMatchObject({ code: 200 });
    expect(await call('DELETE', `/api/system/groups/${id}`)).toMatchObject({
      code: 404,
      message: 'errors.groupNotExist',
    });
    const audit = (await call('GET', '/api/system/audit?target_type=group')).result as {
      items: { action: string }[];
    };
    expect(audit.items.map((e) => e.action).sort()).toEqual(['group.create', 'group.delete']);
  });

  it('records a save with the members it reached, and nothing for a save that changes nothing', async () => {
    const write = template('Reviewers');
    const { id } = (await call('POST', '/api/system/groups', write)).result as { id: number };
    const member = await t.createUser();
    expect(await call('PATCH', `/api/user/${member.row.id}`, { group_id: id })).toMatchObject({ code: 200 });
    const updates = async () =>
      (
        (await call('GET', `/api/system/audit?target_type=group&action=group.update&limit=50`)).result as {
          items: { target_id: string; changes: Record<string, [unknown, unknown]> }[];
        }
      ).items.filter((e) => e.target_id === String(id));

    expect(await call('PUT', `/api/system/groups/${id}`, write)).toMatchObject({ code: 200 });
    expect(await updates()).toEqual([]);

    write.openai_api.total_ask_count = 7;
    expect(await call('PUT', `/api/system/groups/${id}`, write)).toMatchObject({ code: 200 });
    const [entry, ...more] = await updates();
    expect(more).toEqual([]);
    expect(entry!.changes).toMatchObject({
      'openai_api.total_ask_count': [expect.anything(), 7],
      members: [null, 1],
    });
  });

  it('a member gets the group template; a save changes every member at once, keeping what was set on a user; leaving restores their own', async () => {
    const group = (
      await call(
        'POST',
        '/api/system/groups',
        template('Interns', (g) => {
          g.openai_api.total_ask_count = 5;
          g.openai_api.available_models = ['gpt_3_5', 'gpt_4'];
        }),
      )
    ).result as { id: number };
    const ann = await t.createUser();
    const bob = await t.createUser();
    for (const u of [ann, bob]) {
      expect(await call('PATCH', `/api/user/${u.row.id}`, { group_id: group.id })).toMatchObject({
        code: 200,
      });
    }
    let annRead = await readUser(ann.row.id);
    expect(annRead.group_id).toBe(group.id);
    expect(annRead.setting.openai_api.total_ask_count).toBe(5);

    // Set on ann alone: her max conversations.
    const own = { ...annRead.setting, openai_api: { ...annRead.setting.openai_api, max_conv_count: 42 } };
    expect(await call('PATCH', `/api/user/${ann.row.id}/setting`, own)).toMatchObject({ code: 200 });

    // Both can ask GPT-4 now.
    const cookie = await t.login(bob.row.username, bob.password);
    const before = await ask(
      url,
      { source: 'openai_api', model: 'gpt_4', new_conversation: true, text_content: 'hi' },
      { cookie },
    );
    expect(errorTip(before.frames)).toBeNull();

    const saved = await call(
      'PUT',
      `/api/system/groups/${group.id}`,
      template('Interns', (g) => {
        g.openai_api.total_ask_count = 2;
        g.openai_api.available_models = ['gpt_3_5'];
        g.openai_api.max_conv_count = 9;
      }),
    );
    expect(saved).toMatchObject({ code: 200, result: { member_count: 2 } });
    annRead = await readUser(ann.row.id);
    const bobRead = await readUser(bob.row.id);
    for (const u of [annRead, bobRead]) {
      expect(u.setting.openai_api.total_ask_count).toBe(2);
      expect(u.setting.openai_api.available_models).toEqual(['gpt_3_5']);
    }
    // Bob asked once (5 → 4 left), still he follows the group's new count; ann's own max conversations stay.
    expect(annRead.setting.openai_api.max_conv_count).toBe(42);
    expect(bobRead.setting.openai_api.max_conv_count).toBe(9);

    // Admission sees it: the model the group removed is refused.
    const after = await ask(
      url,
      { source: 'openai_api', model: 'gpt_4', new_conversation: true, text_content: 'hi' },
      { cookie },
    );
    expect(errorTip(after.frames)).toBe('errors.userNotAllowToUseModel');

    // Leaving the group: the user's own settings come back where they still had the group's; what was set on
    // the user stays, and so do the asks left.
    const defaults = t.ctx.config.user_defaults.openai_api;
    expect(await call('PATCH', `/api/user/${ann.row.id}`, { group_id: null })).toMatchObject({ code: 200 });
    annRead = await readUser(ann.row.id);
    expect(annRead.group_id).toBeNull();
    expect(annRead.setting.openai_api.available_models).toEqual(defaults.available_models);
    expect(annRead.setting.openai_api.max_conv_count).toBe(42);
    expect(annRead.setting.openai_api.total_ask_count).toBe(2);
    // Deleting the group: every member leaves it the same way.
    expect(await call('DELETE', `/api/system/groups/${group.id}`)).toMatchObject({ code: 200 });
    const bobAfter = await readUser(bob.row.id);
    expect(bobAfter.group_id).toBeNull();
    expect(bobAfter.setting.openai_api.available_models).toEqual(defaults.available_models);
    expect(bobAfter.setting.openai_api.max_conv_count).toBe(defaults.max_conv_count);
    expect(bobAfter.setting.openai_api.total_ask_count).toBe(2);
    // Back on their own settings, GPT-4 is theirs again.
    const again = await ask(
      url,
      { source: 'openai_api', model: 'gpt_4', new_conversation: true, text_content: 'hi' },
      { cookie },
    );
    expect(errorTip(again.frames)).toBeNull();
  });

  it('a group gives its members budgets; a change follows those who kept its value; leaving restores their own', async () => {
    const budgets = { credits: 10, daily_budget: 1, monthly_budget: -1 };
    const group = (
      await call(
        'POST',
        '/api/system/groups',
        template('Budgeted', (g) => (g.budgets = budgets)),
      )
    ).result as { id: number; budgets: unknown };
    expect(group.budgets).toEqual(budgets);
    const ann = await t.createUser();
    const bob = await t.createUser();
    // Ann had a budget of her own before joining.
    const annBefore = await readUser(ann.row.id);
    await call('PATCH', `/api/user/${ann.row.id}/setting`, {
      ...annBefore.setting,
      credits: 3,
      daily_budget: 0.5,
    });
    for (const u of [ann, bob]) await call('PATCH', `/api/user/${u.row.id}`, { group_id: group.id });
    for (const u of [ann, bob])
      expect((await readUser(u.row.id)).setting).toMatchObject({
        credits: 10,
        daily_budget: 1,
        monthly_budget: -1,
      });

    // Set on bob alone: a daily budget of 2. The group raises both budgets: bob keeps his daily one.
    const bobRead = await readUser(bob.row.id);
    await call('PATCH', `/api/user/${bob.row.id}/setting`, { ...bobRead.setting, daily_budget: 2 });
    await call(
      'PUT',
      `/api/system/groups/${group.id}`,
      template('Budgeted', (g) => (g.budgets = { credits: 20, daily_budget: 1.5, monthly_budget: -1 })),
    );
    expect((await readUser(ann.row.id)).setting).toMatchObject({ credits: 20, daily_budget: 1.5 });
    expect((await readUser(bob.row.id)).setting).toMatchObject({ credits: 20, daily_budget: 2 });

    // Leaving: ann's own budgets come back.
    await call('PATCH', `/api/user/${ann.row.id}`, { group_id: null });
    expect((await readUser(ann.row.id)).setting).toMatchObject({
      credits: 3,
      daily_budget: 0.5,
      monthly_budget: -1,
    });
  });

  it("moving to a group that sets no budgets, or a group that stops setting them, gives the member's own back", async () => {
    const budgets = { credits: 5, daily_budget: 2, monthly_budget: -1 };
    const create = async (name: string, withBudgets: boolean) =>
      (
        (await call(
          'POST',
          '/api/system/groups',
          template(name, (g) => (g.budgets = withBudgets ? budgets : null)),
        )) as { result: { id: number } }
      ).result.id;
    const paying = await create('Paying', true);
    const plain = await create('Plain', false);
    const cara = await t.createUser();
    const own = (await readUser(cara.row.id)).setting;
    const ownBudgets = {
      credits: own.credits,
      daily_budget: own.daily_budget,
      monthly_budget: own.monthly_budget,
    };
    expect(ownBudgets).not.toEqual(budgets);

    await call('PATCH', `/api/user/${cara.row.id}`, { group_id: paying });
    expect((await readUser(cara.row.id)).setting).toMatchObject(budgets);
    await call('PATCH', `/api/user/${cara.row.id}`, { group_id: plain });
    expect((await readUser(cara.row.id)).setting).toMatchObject(ownBudgets);
    await call('PATCH', `/api/user/${cara.row.id}`, { group_id: null });
    expect((await readUser(cara.row.id)).setting).toMatchObject(ownBudgets);

    // In the paying group, which then stops setting budgets: her own come back at once, and stay when she leaves.
    await call('PATCH', `/api/user/${cara.row.id}`, { group_id: paying });
    expect((await readUser(cara.row.id)).setting).toMatchObject(budgets);
    await call(
      'PUT',
      `/api/system/groups/${paying}`,
      template('Paying', (g) => (g.budgets = null)),
    );
    expect((await readUser(cara.row.id)).setting).toMatchObject(ownBudgets);
    await call('PATCH', `/api/user/${cara.row.id}`, { group_id: null });
    expect((await readUser(cara.row.id)).setting).toMatchObject(ownBudgets);
  });

  it("a change of one model's count leaves the other models' asks left alone", async () => {
    const counts = (g: UserGroupWrite, browsing: number) =>
      (g.openai_web.per_model_ask_count = { gpt_4: 20, gpt_4_browsing: browsing });
    const group = (
      (await call(
        'POST',
        '/api/system/groups',
        template('Per model', (g) => counts(g, 20)),
      )) as { result: { id: number } }
    ).result.id;
    const dan = await t.createUser();
    await call('PATCH', `/api/user/${dan.row.id}`, { group_id: group });
    // Dan has used one GPT-4 ask (as the ledger counts one down).
    const read = await readUser(dan.row.id);
    const used = {
      ...read.setting,
      openai_web: { ...read.setting.openai_web, per_model_ask_count: { gpt_4: 19, gpt_4_browsing: 20 } },
    };
    expect(await call('PATCH', `/api/user/${dan.row.id}/setting`, used)).toMatchObject({ code: 200 });

    await call(
      'PUT',
      `/api/system/groups/${group}`,
      template('Per model', (g) => counts(g, 10)),
    );
    expect((await readUser(dan.row.id)).setting.openai_web.per_model_ask_count).toEqual({
      gpt_4: 19,
      gpt_4_browsing: 10,
    });
  });

  it("records a member's settings changed by joining a group with the move, and no entry for a save that changes nothing", async () => {
    const group = (
      (await call(
        'POST',
        '/api/system/groups',
        template('Audited', (g) => (g.budgets = { credits: 7, daily_budget: -1, monthly_budget: -1 })),
      )) as { result: { id: number } }
    ).result.id;
    const eve = await t.createUser();
    const entries = async () =>
      (
        (await call('GET', `/api/system/audit?target=${eve.row.username}&limit=50`)) as {
          result: { items: { action: string; changes: Record<string, [unknown, unknown]> }[] };
        }
      ).result.items;
    const before = (await entries()).length;
    await call('PATCH', `/api/user/${eve.row.id}`, { group_id: group });
    const [moved] = await entries();
    expect(moved).toMatchObject({ action: 'user.update' });
    // The group by its name too, which the audit page shows (its id says nothing to a reader).
    expect(moved!.changes).toMatchObject({
      group_id: [null, group],
      group: [null, 'Audited'],
      credits: [-1, 7],
    });

    // The same group again, and the settings saved as they are: nothing changed, nothing recorded.
    await call('PATCH', `/api/user/${eve.row.id}`, { group_id: group });
    const { budget: _budget, ...setting } = (await readUser(eve.row.id)).setting;
    expect(await call('PATCH', `/api/user/${eve.row.id}/setting`, setting)).toMatchObject({ code: 200 });
    expect(await entries()).toHaveLength(before + 1);
  });

  it('records, with the deletion of a group, what it changed for each member', async () => {
    const group = (
      await call(
        'POST',
        '/api/system/groups',
        template('Disbanded', (g) => {
          g.budgets = { credits: 7, daily_budget: -1, monthly_budget: -1 };
          g.openai_api.max_conv_count = 3;
        }),
      )
    ).result as { id: number };
    const [fay, gus] = [await t.createUser(), await t.createUser()];
    for (const u of [fay, gus]) await call('PATCH', `/api/user/${u.row.id}`, { group_id: group.id });
    // Set on gus alone while in the group: it stays his, so it is no change.
    const gusRead = await readUser(gus.row.id);
    const gusOwn = { ...gusRead.setting.openai_api, max_conv_count: 42 };
    await call('PATCH', `/api/user/${gus.row.id}/setting`, { ...gusRead.setting, openai_api: gusOwn });

    expect(await call('DELETE', `/api/system/groups/${group.id}`)).toMatchObject({ code: 200 });
    type Entry = { action: string; target_label: string; changes: Record<string, [unknown, unknown]> };
    const latest = async (target: string) =>
      ((await call('GET', `/api/system/audit?target=${target}&limit=1`)).result as { items: Entry[] })
        .items[0];
    const defaults = t.ctx.config.user_defaults.openai_api;
    const fayEntry = await latest(fay.row.username);
    expect(fayEntry).toMatchObject({ action: 'user.update', target_label: fay.row.username });
    expect(fayEntry!.changes).toEqual({
      group_id: [group.id, null],
      group: ['Disbanded', null],
      credits: [7, -1],
      'openai_api.max_conv_count': [3, defaults.max_conv_count],
    });
    expect((await latest(gus.row.username))!.changes).toEqual({
      group_id: [group.id, null],
      group: ['Disbanded', null],
      credits: [7, -1],
    });
  });

  it('refuses an unknown group and changes nothing', async () => {
    const carol = await t.createUser();
    const res = await call('PATCH', `/api/user/${carol.row.id}`, { group_id: 999_999, remark: 'x' });
    expect(res).toMatchObject({ code: 404, message: 'errors.groupNotExist' });
    const read = await readUser(carol.row.id);
    expect(read).toMatchObject({ group_id: null, remark: null });
  });

  it('refuses what a bulk action may ask of the acting admin, one user at a time', async () => {
    const me = (await call('GET', '/api/user/me')).result as { id: number };
    expect(await call('PATCH', `/api/user/${me.id}`, { is_active: false })).toMatchObject({
      code: 409,
      message: 'errors.cannotDeactivateSelf',
    });
    expect(await call('DELETE', `/api/user/${me.id}`)).toMatchObject({
      code: 409,
      message: 'errors.cannotDeleteSelf',
    });
    // Another user in the same batch is not affected by the refusal.
    const dave = await t.createUser();
    expect(await call('PATCH', `/api/user/${dave.row.id}`, { is_active: false })).toMatchObject({
      code: 200,
    });
    expect((await readUser(me.id)).is_active).toBe(true);
  });
});
