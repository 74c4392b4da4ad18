import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { UserSetting } from '@cc/contracts';
import { TOTAL } from '../repositories/quota.repository';
import { deleteUser, getUser, updateUser } from '../services/user.service';
import { ADMIN, createTestApp } from '../test/harness';
import type { TestApp } from '../test/harness';

let t: TestApp;
let admin: string;
beforeAll(async () => {
  t = await createTestApp();
  admin = await t.login(ADMIN.username, ADMIN.password);
});
afterAll(() => t.close());

const newUser = {
  username: 'alice',
  nickname: 'Alice',
  email: 'alice@example.com',
  password: 'alice-pass-1',
};

describe('users', () => {
  it('superuser registers a user with the config defaults; duplicate username → user already exists', async () => {
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/auth/register',
      headers: { cookie: admin },
      payload: newUser,
    });
    expect(res.statusCode).toBe(201);
    const body = res.json();
    expect(body.code).toBe(201);
    expect(body.result).toMatchObject({
      username: 'alice',
      is_active: true,
      is_superuser: false,
      is_verified: false,
      last_active_time: null,
      remark: null,
    });
    expect(body.result.setting.openai_web).toMatchObject({ max_conv_count: 10, total_ask_count: 100 });
    expect(body.result.setting.openai_web.per_model_ask_count).toEqual(
      t.ctx.config.user_defaults.openai_web.per_model_ask_count,
    );
    expect(JSON.stringify(body)).not.toMatch(/hashed_password|argon2/);
    const again = await t.app.inject({
      method: 'POST',
      url: '/api/auth/register',
      headers: { cookie: admin },
      payload: newUser,
    });
    expect(again.statusCode).toBe(409);
    expect(again.json()).toMatchObject({ message: 'errors.userAlreadyExists' });
  });

  it('validates create fields with the SPEC messages', async () => {
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/auth/register',
      headers: { cookie: admin },
      payload: { username: '', nickname: '', email: 'not-an-email', password: 'has space 1' },
    });
    expect(res.statusCode).toBe(422);
    const msgs = Object.fromEntries(
      res.json().result.detail.map((d: { loc: string[]; msg: string }) => [d.loc.slice(1).join('.'), d.msg]),
    );
    expect(msgs).toMatchObject({
      username: 'validation.usernameRequired',
      nickname: 'validation.nicknameRequired',
      email: 'validation.invalidEmail',
      password: 'validation.passwordRule',
    });
    // Missing fields get the "please enter" messages, never the validator's own English.
    const empty = await t.app.inject({
      method: 'POST',
      url: '/api/auth/register',
      headers: { cookie: admin },
      payload: {},
    });
    expect(empty.statusCode).toBe(422);
    const missing = Object.fromEntries(
      empty
        .json()
        .result.detail.map((d: { loc: string[]; msg: string }) => [d.loc.slice(1).join('.'), d.msg]),
    );
    expect(missing).toEqual({
      username: 'validation.usernameRequired',
      nickname: 'validation.nicknameRequired',
      email: 'validation.emailRequired',
      password: 'validation.passwordRequired',
    });
    // Too long is said to be too long (it read "please enter the username").
    const long = await t.app.inject({
      method: 'POST',
      url: '/api/auth/register',
      headers: { cookie: admin },
      payload: { ...newUser, username: 'u'.repeat(33), nickname: 'N'.repeat(65) },
    });
    expect(long.statusCode).toBe(422);
    expect(
      long.json().result.detail.map((d: { loc: string[]; msg: string }) => [d.loc.slice(1).join('.'), d.msg]),
    ).toEqual([
      ['username', 'validation.usernameTooLong'],
      ['nickname', 'validation.nicknameTooLong'],
    ]);
    const longest = await t.app.inject({
      method: 'POST',
      url: '/api/auth/register',
      headers: { cookie: admin },
      payload: { ...newUser, username: 'u'.repeat(32), nickname: 'N'.repeat(64) },
    });
    expect(longest.statusCode).toBe(201);
  });

  it('refuses a username with control or invisible characters, or one taken in another case', async () => {
    const register = (username: string) =>
      t.app.inject({
        method: 'POST',
        url: '/api/auth/register',
        headers: { cookie: admin },
        payload: { ...newUser, username },
      });
    for (const username of ['ad\u0000min', 'ad\u200bmin', 'nimda\u202e', 'bell\u0007x']) {
      const res = await register(username);
      expect([JSON.stringify(username), res.statusCode]).toEqual([JSON.stringify(username), 422]);
      expect(res.json().result.detail[0]).toMatchObject({ msg: 'validation.usernameInvisible' });
    }
    const upper = await register(ADMIN.username.toUpperCase());
    expect(upper.statusCode).toBe(409);
    expect(upper.json()).toMatchObject({ message: 'errors.userAlreadyExists' });
    // Renaming to a name taken in another case is refused too; a user may change the case of their own.
    const made = await register('case-walker');
    expect(made.statusCode).toBe(201);
    const rename = (username: string) =>
      t.app.inject({
        method: 'PATCH',
        url: `/api/user/${made.json().result.id}`,
        headers: { cookie: admin },
        payload: { username },
      });
    expect((await rename('Admin')).statusCode).toBe(409);
    expect((await rename('Case-Walker')).statusCode).toBe(200);
  });

  it('writes a new username in one form and refuses one that mixes scripts or looks like another', async () => {
    const register = (username: string) =>
      t.app.inject({
        method: 'POST',
        url: '/api/auth/register',
        headers: { cookie: admin },
        payload: { ...newUser, username },
      });
    const detailOf = (res: { json(): { result: { detail: { msg: string }[] } } }) => res.json().result.detail;
    // Full-width letters are the plain ones: "ａｄｍｉｎ" is admin, which exists; "ｍｏｄｅｒｎ" is kept as "modern".
    expect((await register('ａｄｍｉｎ')).json()).toMatchObject({
      code: 409,
      message: 'errors.userAlreadyExists',
    });
    const modern = await register('ｍｏｄｅｒｎ');
    expect(modern.statusCode).toBe(201);
    expect(modern.json().result.username).toBe('modern');
    // Latin mixed with Cyrillic or Greek letters.
    for (const username of ['аdmin', 'pаypal', 'Αlice']) {
      const res = await register(username);
      expect([username, res.statusCode]).toEqual([username, 422]);
      expect(detailOf(res)).toEqual([expect.objectContaining({ msg: 'validation.usernameMixedScript' })]);
    }
    // Names that look like an existing one: "rn" for "m", all-Cyrillic "асе" for "ace", "0" for "o"; the admin is
    // told which user's name it looks like.
    expect((await register('ace')).statusCode).toBe(201);
    for (const [username, existing] of [
      ['rnodern', 'modern'],
      ['асе', 'ace'],
      ['Ac3', null],
      ['m0dern', 'modern'],
    ] as const) {
      const res = await register(username);
      if (existing === null) {
        expect([username, res.statusCode]).toEqual([username, 201]);
        continue;
      }
      expect([username, res.json()]).toEqual([
        username,
        {
          code: 409,
          message: 'errors.usernameLookAlike',
          result: 'errors.detail.usernameLookAlikeOf',
          params: { username: existing },
        },
      ]);
    }
    // Chinese names, alone or with Latin letters and digits, are single names like any other.
    for (const username of ['张三', '张三_zhang3', '李四.Li', '田中たろう', '김민수', 'иван']) {
      const res = await register(username);
      expect([username, res.statusCode]).toEqual([username, 201]);
    }
  });

  it('refuses a rename to a look-alike; a user whose name is refused today still logs in and is edited', async () => {
    const target = await t.createUser({ username: 'renamed-one' });
    const rename = (id: number, username: string) =>
      t.app.inject({
        method: 'PATCH',
        url: `/api/user/${id}`,
        headers: { cookie: admin },
        payload: { username },
      });
    const lookAlike = await rename(target.row.id, 'ADRNIN');
    expect(lookAlike.json()).toMatchObject({
      code: 409,
      message: 'errors.usernameLookAlike',
      params: { username: ADMIN.username },
    });
    expect((await rename(target.row.id, 'аdmin')).statusCode).toBe(422);
    const wide = await rename(target.row.id, 'ｒｅｎａｍｅｄ－ｔｗｏ');
    expect(wide.json().result.username).toBe('renamed-two');
    // Its own name in another look is no one else's.
    expect((await rename(target.row.id, 'RENAMED-TW0')).statusCode).toBe(200);

    // An account made before these rules, named with a Cyrillic "а" among Latin letters.
    const legacy = await t.createUser({ username: 'pаypal' });
    const cookie = await t.login('pаypal', legacy.password);
    const me = await t.app.inject({ url: '/api/user/me', headers: { cookie } });
    expect(me.json().result.username).toBe('pаypal');
    const edited = await t.app.inject({
      method: 'PATCH',
      url: `/api/user/${legacy.row.id}`,
      headers: { cookie: admin },
      payload: { remark: 'kept its name', nickname: 'Pay' },
    });
    expect(edited.json()).toMatchObject({
      code: 200,
      result: { username: 'pаypal', remark: 'kept its name' },
    });
    // Nobody else gets the Latin name it looks like.
    expect((await rename(target.row.id, 'paypal')).json()).toMatchObject({
      code: 409,
      message: 'errors.usernameLookAlike',
    });
  });

  it('enforces the password rule: more than 6 characters, no spaces', async () => {
    for (const password of ['abc12', 'abcdef', 'with space1']) {
      const res = await t.app.inject({
        method: 'POST',
        url: '/api/auth/register',
        headers: { cookie: admin },
        payload: {
          ...newUser,
          username: `pw${password.length}${password.includes(' ') ? 's' : ''}`,
          password,
        },
      });
      expect(res.statusCode, password).toBe(422);
    }
    const okRes = await t.app.inject({
      method: 'POST',
      url: '/api/auth/register',
      headers: { cookie: admin },
      payload: { ...newUser, username: 'pwok', password: 'abc!@#7' },
    });
    expect(okRes.statusCode).toBe(201);
  });

  it('self-edit changes only nickname, email, avatar and password; is_superuser is ignored', async () => {
    const u = await t.createUser();
    const cookie = await t.login(u.row.username, u.password);
    const res = await t.app.inject({
      method: 'PATCH',
      url: '/api/user/me',
      headers: { cookie },
      payload: {
        is_superuser: true,
        is_active: true,
        is_verified: true,
        username: 'hijack',
        remark: 'x',
        nickname: 'New Nick',
      },
    });
    expect(res.statusCode).toBe(200);
    expect(res.json().result).toMatchObject({
      nickname: 'New Nick',
      is_superuser: false,
      is_verified: false,
      username: u.row.username,
    });
    expect(res.json().result).not.toHaveProperty('remark');
    const admins = await t.app.inject({ url: '/api/user', headers: { cookie } });
    expect(admins.statusCode).toBe(403);
    const row = await t.ctx.dbHandle.db
      .selectFrom('users')
      .selectAll()
      .where('id', '=', u.row.id)
      .executeTakeFirstOrThrow();
    expect(row.is_superuser).toBe(0);
  });

  it('takes as avatar only an http(s) URL or a data:image URL, never javascript: and the like', async () => {
    const u = await t.createUser();
    const cookie = await t.login(u.row.username, u.password);
    const setAvatar = (avatar: string | null, who = cookie, url = '/api/user/me') =>
      t.app.inject({ method: 'PATCH', url, headers: { cookie: who }, payload: { avatar } });
    for (const avatar of [
      'https://cdn.example.com/me.png',
      'http://chat.lan/avatars/1.webp',
      'data:image/png;base64,iVBORw0KGgo=',
      null,
    ]) {
      const res = await setAvatar(avatar);
      expect([avatar, res.statusCode]).toEqual([avatar, 200]);
      expect(res.json().result.avatar).toBe(avatar);
    }
    for (const avatar of [
      'javascript:alert(1)',
      ' JavaScript:alert(1)',
      'data:text/html,<script>alert(1)</script>',
      'vbscript:msgbox(1)',
      'file:///etc/passwd',
      '//evil.example/a.png',
      'https://',
    ]) {
      const res = await setAvatar(avatar);
      expect([avatar, res.statusCode]).toEqual([avatar, 422]);
      expect(res.json().result.detail).toEqual([
        expect.objectContaining({ loc: ['body', 'avatar'], msg: 'validation.avatarUrl' }),
      ]);
    }
    // The admin's edit and create go through the same rule.
    const byAdmin = await setAvatar('javascript:alert(1)', admin, `/api/user/${u.row.id}`);
    expect(byAdmin.statusCode).toBe(422);
    const created = await t.app.inject({
      method: 'POST',
      url: '/api/auth/register',
      headers: { cookie: admin },
      payload: { ...newUser, username: 'avatar-js', avatar: 'javascript:alert(1)' },
    });
    expect(created.statusCode).toBe(422);
    expect((await setAvatar(null)).json().result.avatar).toBeNull();
  });

  it('a password change revokes the other sessions but keeps the current one', async () => {
    const u = await t.createUser();
    const a = await t.login(u.row.username, u.password);
    const b = await t.login(u.row.username, u.password);
    const res = await t.app.inject({
      method: 'PATCH',
      url: '/api/user/me',
      headers: { cookie: a },
      payload: { password: 'new-pass-99' },
    });
    expect(res.statusCode).toBe(200);
    expect((await t.app.inject({ url: '/api/user/me', headers: { cookie: a } })).statusCode).toBe(200);
    expect((await t.app.inject({ url: '/api/user/me', headers: { cookie: b } })).json().code).toBe(10401);
    await t.login(u.row.username, 'new-pass-99');
  });

  it('last_active_time is null until the first activity, then written at most once a minute', async () => {
    const u = await t.createUser();
    expect(u.row.last_active_time).toBeNull();
    const cookie = await t.login(u.row.username, u.password);
    const first = (await t.app.inject({ url: '/api/user/me', headers: { cookie } })).json().result
      .last_active_time;
    expect(first).toEqual(expect.any(String));
    const second = (await t.app.inject({ url: '/api/user/me', headers: { cookie } })).json().result
      .last_active_time;
    expect(second).toBe(first);
  });

  it('an id, count or limit beyond what the database keeps (2^31 and up) is a 422, on SQLite and PostgreSQL alike', async () => {
    const big = 2 ** 31;
    const u = await t.createUser();
    const requests: { method: 'GET' | 'PATCH' | 'DELETE' | 'POST'; url: string; payload?: object }[] = [
      { method: 'GET', url: `/api/user/${big}` },
      { method: 'PATCH', url: `/api/user/${big}`, payload: { remark: 'x' } },
      { method: 'DELETE', url: `/api/user/${big}` },
      { method: 'POST', url: `/api/user/${big}/reset-chat-status` },
      { method: 'DELETE', url: `/api/system/groups/${big}` },
      { method: 'DELETE', url: `/api/system/invites/${big}` },
      { method: 'PATCH', url: `/api/user/${u.row.id}`, payload: { group_id: big } },
      { method: 'GET', url: `/api/conv/all?user_id=${big}` },
    ];
    for (const r of requests) {
      const res = await t.app.inject({ ...r, headers: { cookie: admin } });
      expect([res.statusCode, res.json<{ code: number }>().code], `${r.method} ${r.url}`).toEqual([422, 422]);
    }
    const setting = (await t.app.inject({ url: `/api/user/${u.row.id}`, headers: { cookie: admin } })).json<{
      result: { setting: Record<string, unknown> };
    }>().result.setting;
    const res = await t.app.inject({
      method: 'PATCH',
      url: `/api/user/${u.row.id}/setting`,
      headers: { cookie: admin },
      payload: { ...setting, openai_api: { ...(setting.openai_api as object), total_ask_count: big } },
    });
    expect(res.statusCode, res.body).toBe(422);
    expect(
      (await t.app.inject({ url: `/api/user/${2 ** 31 - 1}`, headers: { cookie: admin } })).statusCode,
    ).toBe(404);
  });

  it('admin list, get, update (username, remark), delete', async () => {
    const u = await t.createUser();
    const list = await t.app.inject({ url: '/api/user', headers: { cookie: admin } });
    expect(list.statusCode).toBe(200);
    const entry = list.json().result.find((x: { id: number }) => x.id === u.row.id);
    expect(entry).toHaveProperty('remark');
    expect(entry).toHaveProperty('setting.openai_api.custom_openai_api_settings');
    expect(JSON.stringify(list.json())).not.toContain('hashed_password');

    const patched = await t.app.inject({
      method: 'PATCH',
      url: `/api/user/${u.row.id}`,
      headers: { cookie: admin },
      payload: { username: `${u.row.username}x`, remark: 'VIP', is_verified: true },
    });
    expect(patched.json().result).toMatchObject({
      username: `${u.row.username}x`,
      remark: 'VIP',
      is_verified: true,
    });

    const taken = await t.app.inject({
      method: 'PATCH',
      url: `/api/user/${u.row.id}`,
      headers: { cookie: admin },
      payload: { username: 'admin' },
    });
    expect(taken.json().message).toBe('errors.userAlreadyExists');

    const got = await t.app.inject({ url: `/api/user/${u.row.id}`, headers: { cookie: admin } });
    expect(got.json().result.remark).toBe('VIP');

    const del = await t.app.inject({
      method: 'DELETE',
      url: `/api/user/${u.row.id}`,
      headers: { cookie: admin },
    });
    expect(del.statusCode).toBe(200);
    const gone = await t.app.inject({ url: `/api/user/${u.row.id}`, headers: { cookie: admin } });
    expect(gone.statusCode).toBe(404);
    expect(gone.json().message).toBe('errors.userNotExist');
  });

  it('deactivating a user ends their sessions at once', async () => {
    const u = await t.createUser();
    const cookie = await t.login(u.row.username, u.password);
    await t.app.inject({
      method: 'PATCH',
      url: `/api/user/${u.row.id}`,
      headers: { cookie: admin },
      payload: { is_active: false },
    });
    expect((await t.app.inject({ url: '/api/user/me', headers: { cookie } })).json().code).toBe(10401);
  });

  it('resetting a stuck chat status frees the user and leaves the quotas alone', async () => {
    const u = await t.createUser();
    const before = (await t.app.inject({ url: `/api/user/${u.row.id}`, headers: { cookie: admin } })).json()
      .result;
    expect(await t.ctx.coordination.chatStatus.tryAcquire(u.row.id, 600)).toBe(true);
    await t.ctx.coordination.chatStatus.set(u.row.id, 'asking');
    const res = await t.app.inject({
      method: 'POST',
      url: `/api/user/${u.row.id}/reset-chat-status`,
      headers: { cookie: admin },
    });
    expect(res.statusCode, res.body).toBe(200);
    expect(await t.ctx.coordination.chatStatus.get(u.row.id)).toBeNull();
    expect(await t.ctx.coordination.chatStatus.tryAcquire(u.row.id, 1)).toBe(true);
    await t.ctx.coordination.chatStatus.release(u.row.id);
    expect(res.json().result.setting.openai_web).toEqual(before.setting.openai_web);
    expect(res.json().result.setting.openai_api).toEqual(before.setting.openai_api);
    const missing = await t.app.inject({
      method: 'POST',
      url: '/api/user/999999/reset-chat-status',
      headers: { cookie: admin },
    });
    expect(missing.json().message).toBe('errors.userNotExist');
  });

  it('replaces per-source settings, validated; the custom API key is write-only', async () => {
    const u = await t.createUser();
    const current = (await t.app.inject({ url: `/api/user/${u.row.id}`, headers: { cookie: admin } })).json()
      .result.setting;
    const next = {
      credits: 12.5,
      openai_web: {
        ...current.openai_web,
        total_ask_count: 3,
        per_model_ask_count: { gpt_4: 1 },
        rate_limits: [{ window_seconds: 3600, max_requests: 10 }],
        daily_available_time_slots: [{ start_time: '08:00:00', end_time: '18:00:00' }],
        valid_until: '2030-01-01T00:00:00Z',
      },
      openai_api: {
        ...current.openai_api,
        allow_custom_openai_api: true,
        custom_openai_api_settings: { url: 'https://llm.internal.example/v1/', key: 'sk-secret-value' },
      },
    };
    const res = await t.app.inject({
      method: 'PATCH',
      url: `/api/user/${u.row.id}/setting`,
      headers: { cookie: admin },
      payload: next,
    });
    expect(res.statusCode).toBe(200);
    const s = res.json().result.setting;
    expect(s.credits).toBe(12.5);
    expect(s.openai_web).toMatchObject({ total_ask_count: 3, per_model_ask_count: { gpt_4: 1 } });
    expect(s.openai_api.custom_openai_api_settings).toEqual({
      url: 'https://llm.internal.example/v1/',
      key: '********',
    });
    expect(res.body).not.toContain('sk-secret-value');
    const stored = await t.ctx.dbHandle.db
      .selectFrom('user_settings')
      .select('openai_api')
      .where('user_id', '=', u.row.id)
      .executeTakeFirstOrThrow();
    expect(stored.openai_api).not.toContain('sk-secret-value');

    // Sending the mask back keeps the key.
    const again = await t.app.inject({
      method: 'PATCH',
      url: `/api/user/${u.row.id}/setting`,
      headers: { cookie: admin },
      payload: {
        ...next,
        openai_api: {
          ...next.openai_api,
          custom_openai_api_settings: {
            url: next.openai_api.custom_openai_api_settings.url,
            key: '********',
          },
        },
      },
    });
    expect(again.json().result.setting.openai_api.custom_openai_api_settings.key).toBe('********');

    const bad = await t.app.inject({
      method: 'PATCH',
      url: `/api/user/${u.row.id}/setting`,
      headers: { cookie: admin },
      payload: {
        ...next,
        openai_web: {
          ...next.openai_web,
          available_models: ['gpt_9'],
          max_conv_count: -2,
          daily_available_time_slots: [{ start_time: '25:00:00', end_time: 'x' }],
        },
      },
    });
    expect(bad.statusCode).toBe(422);
    const locs = bad.json().result.detail.map((d: { loc: (string | number)[] }) => d.loc.join('.'));
    expect(locs).toEqual(
      expect.arrayContaining([
        'body.openai_web.available_models.0',
        'body.openai_web.max_conv_count',
        'body.openai_web.daily_available_time_slots.0.start_time',
      ]),
    );
  });

  it('a save from a form loaded before the user asked keeps the asks taken since, and writes the counts changed', async () => {
    const made = await t.createUser();
    const id = made.row.id;
    const loaded = (await t.app.inject({ url: `/api/user/${id}`, headers: { cookie: admin } })).json().result
      .setting as UserSetting;
    const seen = (s: UserSetting['openai_web'] | UserSetting['openai_api']) => ({
      total_ask_count: s.total_ask_count,
      per_model_ask_count: s.per_model_ask_count,
    });
    // The user asks twice on the API source (as the ledger counts them down) after the form was loaded.
    await t.ctx.dbHandle.db
      .updateTable('quota_counters')
      .set({ remaining: loaded.openai_api.total_ask_count - 2 })
      .where('user_id', '=', id)
      .where('source', '=', 'openai_api')
      .where('model', '=', TOTAL)
      .execute();
    const save = (change: (s: UserSetting) => void) => {
      const { budget: _budget, ...setting } = structuredClone(loaded) as UserSetting & {
        budget?: unknown;
      };
      change(setting);
      return t.app.inject({
        method: 'PATCH',
        url: `/api/user/${id}/setting`,
        headers: { cookie: admin },
        payload: {
          ...setting,
          counts_seen: { openai_web: seen(loaded.openai_web), openai_api: seen(loaded.openai_api) },
        },
      });
    };
    // Only the daily budget changed on the form: the two asks stay taken.
    const budgetOnly = await save((s) => (s.daily_budget = 11));
    expect(budgetOnly.statusCode, budgetOnly.body).toBe(200);
    expect(budgetOnly.json().result.setting).toMatchObject({
      daily_budget: 11,
      openai_api: { total_ask_count: loaded.openai_api.total_ask_count - 2 },
      openai_web: { total_ask_count: loaded.openai_web.total_ask_count },
    });
    // A count the admin changes is written.
    const counted = await save((s) => (s.openai_api.total_ask_count = 50));
    expect(counted.json().result.setting.openai_api.total_ask_count).toBe(50);
  });

  it('the user sees what they can really use under the live config', async () => {
    const u = await t.createUser();
    const cookie = await t.login(u.row.username, u.password);
    const me = (await t.app.inject({ url: '/api/user/me', headers: { cookie } })).json().result;
    expect(me.setting.openai_web.available_models).not.toContain('gpt_4_dalle');
    expect(me.setting.openai_web_chat_status).toBe('idling');
  });
});

describe('superusers cannot lock everyone out', () => {
  it('an admin cannot demote or deactivate themself; other changes to their own row still apply', async () => {
    const me = (await t.app.inject({ url: '/api/user/me', headers: { cookie: admin } })).json().result;
    const patch = (payload: object) =>
      t.app.inject({ method: 'PATCH', url: `/api/user/${me.id}`, headers: { cookie: admin }, payload });

    const demote = await patch({ is_superuser: false });
    expect(demote.statusCode).toBe(409);
    expect(demote.json()).toMatchObject({ code: 409, message: 'errors.cannotDemoteSelf' });
    const deactivate = await patch({ is_active: false, remark: 'gone' });
    expect(deactivate.statusCode).toBe(409);
    expect(deactivate.json()).toMatchObject({ code: 409, message: 'errors.cannotDeactivateSelf' });

    // Nothing of a refused patch was applied, and the admin is still logged in with their rights.
    const after = (await t.app.inject({ url: '/api/user/me', headers: { cookie: admin } })).json();
    expect(after.code).toBe(200);
    expect(after.result).toMatchObject({ is_superuser: true, is_active: true, remark: me.remark });
    const remark = await patch({ remark: 'the admin', is_superuser: true, is_active: true });
    expect(remark.statusCode, remark.body).toBe(200);
    expect(remark.json().result).toMatchObject({ remark: 'the admin', is_superuser: true, is_active: true });
  });

  it('another superuser can be demoted, deactivated and deleted while one stays active', async () => {
    const other = await t.createUser({ is_superuser: true });
    const url = `/api/user/${other.row.id}`;
    const demoted = await t.app.inject({
      method: 'PATCH',
      url,
      headers: { cookie: admin },
      payload: { is_superuser: false },
    });
    expect(demoted.json().result).toMatchObject({ is_superuser: false });
    const promoted = await t.app.inject({
      method: 'PATCH',
      url,
      headers: { cookie: admin },
      payload: { is_superuser: true, is_active: false },
    });
    expect(promoted.json().result).toMatchObject({ is_superuser: true, is_active: false });
    const del = await t.app.inject({ method: 'DELETE', url, headers: { cookie: admin } });
    expect(del.statusCode).toBe(200);
  });

  it('two superusers demoting each other at once leave one of them a superuser', async () => {
    const app = await createTestApp();
    try {
      const a = await app.createUser({ is_superuser: true });
      const b = await app.createUser({ is_superuser: true });
      // Only a and b stay superusers: the initial admin steps down first.
      const adminCookie = await app.login(ADMIN.username, ADMIN.password);
      const adminId = (await app.app.inject({ url: '/api/user/me', headers: { cookie: adminCookie } })).json()
        .result.id as number;
      const aCookie = await app.login(a.row.username, a.password);
      const bCookie = await app.login(b.row.username, b.password);
      const stepDown = await app.app.inject({
        method: 'PATCH',
        url: `/api/user/${adminId}`,
        headers: { cookie: aCookie },
        payload: { is_superuser: false },
      });
      expect(stepDown.statusCode, stepDown.body).toBe(200);

      const [aDemotesB, bDemotesA] = await Promise.all([
        app.app.inject({
          method: 'PATCH',
          url: `/api/user/${b.row.id}`,
          headers: { cookie: aCookie },
          payload: { is_superuser: false },
        }),
        app.app.inject({
          method: 'PATCH',
          url: `/api/user/${a.row.id}`,
          headers: { cookie: bCookie },
          payload: { is_superuser: false },
        }),
      ]);
      const statuses = [aDemotesB.statusCode, bDemotesA.statusCode].sort();
      // One wins; the other is refused, as the last active superuser (409) or as no longer a superuser (403).
      expect(statuses[0]).toBe(200);
      expect([403, 409]).toContain(statuses[1]);
      const rows = await Promise.all([a, b].map(async (u) => (await getUser(app.ctx, u.row.id)).row));
      expect(rows.filter((r) => r.is_superuser === 1 && r.is_active === 1)).toHaveLength(1);
    } finally {
      await app.close();
    }
  });

  it('the last active superuser cannot be demoted, deactivated or deleted, whoever asks', async () => {
    const app = await createTestApp();
    try {
      const adminCookie = await app.login(ADMIN.username, ADMIN.password);
      const adminId = (await app.app.inject({ url: '/api/user/me', headers: { cookie: adminCookie } })).json()
        .result.id as number;
      // An inactive superuser does not count: it cannot log in to the admin.
      const dormant = await app.createUser({ is_superuser: true, is_active: false });
      const someone = await app.createUser();
      // Called without an acting admin (as a maintenance script would) or by another user: the rule still holds.
      await expect(
        updateUser(app.ctx, { userId: adminId, patch: { is_superuser: false } }),
      ).rejects.toMatchObject({ def: { code: 409, message: 'errors.lastActiveSuperuser' } });
      await expect(
        updateUser(app.ctx, { userId: adminId, patch: { is_active: false }, actorId: someone.row.id }),
      ).rejects.toMatchObject({ def: { message: 'errors.lastActiveSuperuser' } });
      await expect(deleteUser(app.ctx, adminId, someone.row.id)).rejects.toMatchObject({
        def: { message: 'errors.lastActiveSuperuser' },
      });
      const me = (await app.app.inject({ url: '/api/user/me', headers: { cookie: adminCookie } })).json();
      expect(me.result).toMatchObject({ is_superuser: true, is_active: true });

      // Once another superuser is active, the same changes go through.
      await updateUser(app.ctx, { userId: dormant.row.id, patch: { is_active: true } });
      const demoted = await updateUser(app.ctx, { userId: adminId, patch: { is_superuser: false } });
      expect(demoted.row.is_superuser).toBe(0);
    } finally {
      await app.close();
    }
  });
});
