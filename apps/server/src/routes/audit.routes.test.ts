import { startEmulator } from '@cc/upstream-emulator';
import type { Emulator } from '@cc/upstream-emulator';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { MASKED_SECRET } from '@cc/contracts';
import type { AuditEntry, AuditPage, ConfigWriteInput } from '@cc/contracts';
import { purgeExpiredData } from '../services/retention.service';
import { ADMIN, createTestApp, insertConversation } from '../test/harness';
import type { TestApp } from '../test/harness';

let t: TestApp;
let admin: string;
let adminId: number;
let emulator: Emulator;
const ADDRESS = '10.20.30.40';

beforeAll(async () => {
  t = await createTestApp({ openai_api: { connect_timeout: 2, read_timeout: 5 } });
  admin = await t.login(ADMIN.username, ADMIN.password);
  adminId = (await t.app.inject({ url: '/api/user/me', headers: { cookie: admin } })).json().result.id;
  emulator = await startEmulator();
});
afterAll(async () => {
  await t.close();
  await emulator.close();
});

/** An admin request from a known client address. */
function as(
  cookie: string,
  method: 'GET' | 'POST' | 'PATCH' | 'PUT' | 'DELETE',
  url: string,
  payload?: unknown,
) {
  return t.app.inject({
    method,
    url,
    headers: { cookie },
    remoteAddress: ADDRESS,
    ...(payload === undefined ? {} : { payload: payload as object }),
  });
}

async function audit(query = ''): Promise<AuditPage> {
  const res = await as(admin, 'GET', `/api/system/audit${query}`);
  expect(res.statusCode, res.body).toBe(200);
  return res.json().result as AuditPage;
}

/** The entries written since `since` (by id), oldest first. */
async function entriesSince(since: number): Promise<AuditEntry[]> {
  return (await audit('?limit=500')).items.filter((e) => e.id > since).reverse();
}

/** The one entry a change wrote. */
async function onlyEntrySince(since: number): Promise<AuditEntry> {
  const entries = await entriesSince(since);
  expect(entries, JSON.stringify(entries)).toHaveLength(1);
  return entries[0]!;
}

async function lastId(): Promise<number> {
  return (await audit('?limit=1')).items[0]?.id ?? 0;
}

/** Every stored column of every row, as text: a secret must not appear anywhere in it. */
async function storedText(): Promise<string> {
  const rows = await t.ctx.dbHandle.db.selectFrom('audit_logs').selectAll().execute();
  return JSON.stringify(rows);
}

const byAdmin = { actor_id: expect.any(Number), actor_name: ADMIN.username, address: ADDRESS };

let mark = 0;
beforeEach(async () => {
  mark = await lastId();
});

describe('audit log: users', () => {
  it('records create, update, settings and delete with actor, address, target and before → after', async () => {
    const created = await as(admin, 'POST', '/api/auth/register', {
      username: 'audited',
      password: 'secret-pass-1',
      nickname: 'Audited',
      email: 'audited@example.com',
      is_active: true,
      is_superuser: false,
      is_verified: false,
    });
    expect(created.statusCode, created.body).toBe(201);
    const id = created.json().result.id as number;
    const create = await onlyEntrySince(mark);
    expect(create).toMatchObject({
      ...byAdmin,
      actor_id: adminId,
      action: 'user.create',
      target_type: 'user',
      target_id: String(id),
      target_label: 'audited',
      outcome: 'success',
    });
    expect(create.changes).toMatchObject({ username: [null, 'audited'], password: [null, MASKED_SECRET] });

    mark = await lastId();
    const updated = await as(admin, 'PATCH', `/api/user/${id}`, {
      nickname: 'Renamed',
      password: 'new-pass-22',
    });
    expect(updated.statusCode, updated.body).toBe(200);
    const update = await onlyEntrySince(mark);
    expect(update).toMatchObject({ ...byAdmin, action: 'user.update', target_id: String(id) });
    expect(update.changes).toEqual({
      nickname: ['Audited', 'Renamed'],
      password: [MASKED_SECRET, MASKED_SECRET],
    });

    mark = await lastId();
    const before = created.json().result.setting;
    const settings = await as(admin, 'PATCH', `/api/user/${id}/setting`, {
      credits: 7,
      openai_web: { ...before.openai_web, total_ask_count: 3 },
      openai_api: {
        ...before.openai_api,
        custom_openai_api_settings: { url: 'https://api.example.com/v1', key: 'sk-audit-secret-123' },
      },
    });
    expect(settings.statusCode, settings.body).toBe(200);
    const setting = await onlyEntrySince(mark);
    expect(setting).toMatchObject({ ...byAdmin, action: 'user.settings', target_label: 'audited' });
    expect(setting.changes).toEqual({
      credits: [before.credits, 7],
      'openai_web.total_ask_count': [before.openai_web.total_ask_count, 3],
      'openai_api.custom_openai_api_settings.url': [null, 'https://api.example.com/v1'],
      'openai_api.custom_openai_api_settings.key': [null, MASKED_SECRET],
    });

    mark = await lastId();
    expect((await as(admin, 'DELETE', `/api/user/${id}`)).statusCode).toBe(200);
    const deleted = await onlyEntrySince(mark);
    expect(deleted).toMatchObject({ ...byAdmin, action: 'user.delete', target_label: 'audited' });
    expect(deleted.changes).toMatchObject({ username: ['audited', null], nickname: ['Renamed', null] });

    const stored = await storedText();
    for (const secret of ['secret-pass-1', 'new-pass-22', 'sk-audit-secret-123'])
      expect(stored).not.toContain(secret);
  });
});

describe('audit log: logins', () => {
  it('records a login and a failed login with the client address, never the password', async () => {
    const u = await t.createUser();
    const form = (password: string) =>
      t.app.inject({
        method: 'POST',
        url: '/api/auth/login',
        payload: new URLSearchParams({ username: u.row.username, password }).toString(),
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        remoteAddress: '10.9.8.7',
      });
    expect((await form('wrong-password-xyz')).statusCode).toBe(401);
    expect((await form(u.password)).statusCode).toBe(200);
    const [failed, ok] = await entriesSince(mark);
    expect(failed).toMatchObject({
      actor_id: null,
      actor_name: u.row.username,
      address: '10.9.8.7',
      action: 'auth.login_failed',
      target_type: 'user',
      target_id: String(u.row.id),
      outcome: 'failure',
      changes: {},
    });
    expect(ok).toMatchObject({
      actor_id: u.row.id,
      actor_name: u.row.username,
      address: '10.9.8.7',
      action: 'auth.login',
      outcome: 'success',
    });
    const stored = await storedText();
    expect(stored).not.toContain('wrong-password-xyz');
    expect(stored).not.toContain(u.password);
  });
});

const conversationOf = (userId: number, title: string) => insertConversation(t.ctx, userId, { title });

describe('audit log: conversations', () => {
  it('records invalidate, destroy and assign by an admin; a user deleting their own is no admin change', async () => {
    const owner = await t.createUser();
    const other = await t.createUser();
    const ownerCookie = await t.login(owner.row.username, owner.password);
    mark = await lastId();

    const own = await conversationOf(owner.row.id, 'mine');
    expect((await as(ownerCookie, 'DELETE', `/api/conv/${own}`)).statusCode).toBe(200);
    expect(await entriesSince(mark)).toEqual([]);

    const a = await conversationOf(owner.row.id, 'first');
    expect((await as(admin, 'DELETE', `/api/conv/${a}`)).statusCode).toBe(200);
    expect(await onlyEntrySince(mark)).toMatchObject({
      ...byAdmin,
      action: 'conversation.invalidate',
      target_type: 'conversation',
      target_id: a,
      target_label: 'first',
      changes: { is_valid: [true, false] },
    });

    mark = await lastId();
    const b = await conversationOf(owner.row.id, 'second');
    const assigned = await as(admin, 'PATCH', `/api/conv/${b}/assign/${other.row.username}`);
    expect(assigned.statusCode, assigned.body).toBe(200);
    expect(await onlyEntrySince(mark)).toMatchObject({
      ...byAdmin,
      action: 'conversation.assign',
      target_id: b,
      changes: { user_id: [owner.row.id, other.row.id], owner: [owner.row.username, other.row.username] },
    });

    mark = await lastId();
    expect((await as(admin, 'DELETE', `/api/conv/${b}/vanish`)).statusCode).toBe(200);
    expect(await onlyEntrySince(mark)).toMatchObject({
      ...byAdmin,
      action: 'conversation.vanish',
      target_id: b,
      changes: { title: ['second', null], user_id: [other.row.id, null] },
    });

    mark = await lastId();
    const c = await conversationOf(owner.row.id, 'bulk');
    const bulk = await as(admin, 'POST', '/api/conv/bulk', { action: 'invalidate', conversation_ids: [c] });
    expect(bulk.statusCode).toBe(200);
    expect(await onlyEntrySince(mark)).toMatchObject({ action: 'conversation.invalidate', target_id: c });
  });
});

describe('audit log: servers, tasks, config, credentials', () => {
  it('records server add, update and delete with before → after', async () => {
    const added = await as(admin, 'POST', '/api/system/addMachine', {
      source: 'openai_api',
      hostname: 'audit-host',
      ip_address: '127.0.0.1',
      port: Number(new URL(emulator.url).port),
      base_path: '/v1/',
      status: 'disabled',
    });
    expect(added.statusCode, added.body).toBe(201);
    const id = added.json().result.id as number;
    expect(await onlyEntrySince(mark)).toMatchObject({
      ...byAdmin,
      action: 'server.create',
      target_type: 'server',
      target_id: String(id),
      target_label: 'audit-host',
      changes: { hostname: [null, 'audit-host'], status: [null, 'disabled'] },
    });

    mark = await lastId();
    expect((await as(admin, 'POST', '/api/system/updateMachine', { id, weight: 5 })).statusCode).toBe(200);
    expect(await onlyEntrySince(mark)).toMatchObject({
      ...byAdmin,
      action: 'server.update',
      changes: { weight: [1, 5] },
    });
    expect((await onlyEntrySince(mark)).changes).toEqual({ weight: [1, 5] });

    mark = await lastId();
    expect((await as(admin, 'DELETE', `/api/system/delMachine/${id}`)).statusCode).toBe(200);
    expect(await onlyEntrySince(mark)).toMatchObject({
      ...byAdmin,
      action: 'server.delete',
      changes: { hostname: ['audit-host', null], weight: [5, null] },
    });
  });

  it('records a task run and a schedule edit', async () => {
    const run = await as(admin, 'POST', '/api/system/task/stats_retention/run');
    expect(run.statusCode, run.body).toBe(200);
    expect(await onlyEntrySince(mark)).toMatchObject({
      ...byAdmin,
      action: 'task.run',
      target_type: 'task',
      target_id: 'stats_retention',
      outcome: 'success',
    });

    mark = await lastId();
    const edit = await as(admin, 'PATCH', '/api/system/task/stats_retention', { interval_seconds: 7200 });
    expect(edit.statusCode, edit.body).toBe(200);
    expect(await onlyEntrySince(mark)).toMatchObject({
      ...byAdmin,
      action: 'task.update',
      changes: { interval_seconds: [3600, 7200] },
    });
  });

  it('records a config change (only the changed keys) and a credentials change without the values', async () => {
    const read = (await as(admin, 'GET', '/api/system/config')).json().result as ConfigWriteInput;
    const saved = await as(admin, 'PUT', '/api/system/config', {
      ...read,
      openai_web: { ...read.openai_web, gpt4_cap_per_3_hours: 40 },
    });
    expect(saved.statusCode, saved.body).toBe(200);
    expect(await onlyEntrySince(mark)).toMatchObject({
      ...byAdmin,
      action: 'config.update',
      target_type: 'config',
      changes: { 'openai_web.gpt4_cap_per_3_hours': [50, 40] },
    });

    mark = await lastId();
    const token = 'web-token-audit-secret-456';
    const key = 'sk-api-audit-secret-789';
    const first = await as(admin, 'PUT', '/api/system/credentials', { openai_web_access_token: token });
    expect(first.statusCode, first.body).toBe(200);
    const second = await as(admin, 'PUT', '/api/system/credentials', {
      openai_web_access_token: MASKED_SECRET,
      openai_api_key: key,
    });
    expect(second.statusCode).toBe(200);
    const [set, added] = await entriesSince(mark);
    expect(set).toMatchObject({
      ...byAdmin,
      action: 'credentials.update',
      target_type: 'credentials',
      changes: { openai_web_access_token: [null, MASKED_SECRET] },
    });
    expect(added!.changes).toEqual({ openai_api_key: [null, MASKED_SECRET] });
    const stored = await storedText();
    expect(stored).not.toContain(token);
    expect(stored).not.toContain(key);
  });
});

describe('audit log: reading it', () => {
  it('filters by actor, action, target and time, pages, and refuses an ordinary user', async () => {
    const u = await t.createUser({ username: 'filter_target' });
    const cookie = await t.login(u.row.username, u.password);
    await as(admin, 'PATCH', `/api/user/${u.row.id}`, { nickname: 'one' });
    await as(admin, 'PATCH', `/api/user/${u.row.id}`, { nickname: 'two' });

    const updates = await audit(`?action=user.update&target=filter_t`);
    expect(updates.total).toBe(2);
    expect(updates.items.map((e) => e.changes.nickname?.[1])).toEqual(['two', 'one']);
    expect((await audit(`?action=user.update&target=${u.row.id}&limit=1`)).items).toHaveLength(1);
    expect(
      (await audit(`?action=user.update&target=${u.row.id}&limit=1&offset=1`)).items[0]!.changes,
    ).toEqual({
      nickname: [expect.any(String), 'one'],
    });
    const logins = await audit(`?actor=${u.row.username.toUpperCase()}&action=auth.login`);
    expect(logins.total).toBe(1);
    expect(logins.items[0]!.actor_id).toBe(u.row.id);
    // LIKE characters in the target filter match themselves.
    expect((await audit('?target=filter%25')).total).toBe(0);

    const future = new Date(Date.now() + 3600_000).toISOString();
    expect((await audit(`?start_time=${encodeURIComponent(future)}`)).total).toBe(0);
    const past = new Date(Date.now() - 3600_000).toISOString();
    expect((await audit(`?end_time=${encodeURIComponent(past)}`)).total).toBe(0);

    expect((await as(admin, 'GET', '/api/system/audit?action=user.nope')).statusCode).toBe(422);
    for (const url of ['/api/system/audit', '/api/system/audit.csv']) {
      const res = await as(cookie, 'GET', url);
      expect(res.statusCode).toBe(403);
      expect(res.json().code).toBe(10403);
    }
  });

  it('exports CSV with formula cells neutralised and quotes escaped', async () => {
    const u = await t.createUser({ username: 'csv_user' });
    await as(admin, 'PATCH', `/api/user/${u.row.id}`, { nickname: '=HYPERLINK("http://evil")' });
    await as(admin, 'PATCH', `/api/user/${u.row.id}`, { nickname: '@SUM(1,2)' });
    const res = await as(admin, 'GET', `/api/system/audit.csv?target=csv_user&action=user.update`);
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toContain('text/csv');
    expect(res.headers['content-disposition']).toMatch(/^attachment; filename="audit-[\d-]+\.csv"$/);
    const lines = res.body
      .replace(/^\uFEFF/, '')
      .trimEnd()
      .split('\r\n');
    expect(lines[0]).toBe(
      'time,actor_id,actor_name,address,action,target_type,target_id,target_label,outcome,changes',
    );
    expect(lines).toHaveLength(3);
    // Newest first; the changes cell starts with the field name, the formula text is inside it and quoted.
    expect(lines[1]).toContain(`,user.update,user,${u.row.id},csv_user,success,`);
    expect(lines[1]).toContain('"nickname: ""=HYPERLINK(\\""http://evil\\"")"" → ""@SUM(1,2)"""');

    // A cell that would start with a formula character gets a leading quote.
    const evil = await t.createUser({ username: 'csv_evil' });
    await t.ctx.dbHandle.db
      .updateTable('users')
      .set({ username: '=cmd|calc' })
      .where('id', '=', evil.row.id)
      .execute();
    await as(admin, 'PATCH', `/api/user/${evil.row.id}`, { nickname: 'x' });
    const csv = (await as(admin, 'GET', '/api/system/audit.csv?target=%3Dcmd')).body;
    expect(csv).toContain(`,'=cmd|calc,`);
    expect(csv).not.toMatch(/,=cmd/);
  });

  it('retention deletes only entries older than the configured time; -1 keeps them all', async () => {
    const db = t.ctx.dbHandle.db;
    const old = new Date(Date.now() - 400 * 86_400_000).toISOString();
    const recent = new Date(Date.now() - 10 * 86_400_000).toISOString();
    for (const time of [old, recent]) {
      await db
        .insertInto('audit_logs')
        .values({
          time,
          actor_id: null,
          actor_name: 'retention-probe',
          address: null,
          action: 'auth.login_failed',
          target_type: 'user',
          target_id: null,
          target_label: time,
          changes: '{}',
          outcome: 'failure',
        })
        .execute();
    }
    const probes = async () => (await audit('?actor=retention-probe')).items.map((e) => e.time);
    const config = t.ctx.runtime.current();
    await t.ctx.runtime.save({ ...config, stats: { ...config.stats, audit_log_ttl: -1 } });
    expect((await purgeExpiredData(t.ctx)).audit_logs).toBe(0);
    expect(await probes()).toEqual([recent, old]);

    await t.ctx.runtime.save({ ...config, stats: { ...config.stats, audit_log_ttl: 365 * 86_400 } });
    expect((await purgeExpiredData(t.ctx)).audit_logs).toBe(1);
    expect(await probes()).toEqual([recent]);
    expect((await audit()).total).toBeGreaterThan(1);
  });
});
