import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { Writable } from 'node:stream';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { AskStatsBucket, MASKED_SECRET, RequestStatsBucket, TIPS, envelope } from '@cc/contracts';
import type { ConfigWriteInput } from '@cc/contracts';
import { buildApp } from '../app';
import { loadConfig } from '../config/bootstrap';
import { createRuntimeSettings } from '../config/runtime-settings';
import { serverLogFile } from '../log/logger';
import { askLogRepository } from '../repositories/ask-log.repository';
import { conversationRepository } from '../repositories/conversation.repository';
import { requestLogRepository } from '../repositories/request-log.repository';
import { settingsRepository } from '../repositories/settings.repository';
import { ADMIN, createTestApp } from '../test/harness';
import type { TestApp } from '../test/harness';

let t: TestApp;
let admin: string;
let user: { id: number; cookie: string };

beforeAll(async () => {
  t = await createTestApp();
  admin = await t.login(ADMIN.username, ADMIN.password);
  const u = await t.createUser();
  user = { id: u.row.id, cookie: await t.login(u.row.username, u.password) };
});
afterAll(() => t.close());

const get = (url: string, cookie = admin) => t.app.inject({ method: 'GET', url, headers: { cookie } });

async function askAt(time: string, source: string, model: string, userId: number, askTime = 2, queueing = 1) {
  await askLogRepository(t.ctx.dbHandle.db).insert({
    time,
    source,
    model,
    user_id: userId,
    conversation_id: null,
    server_id: null,
    queueing_time: queueing,
    ask_time: askTime,
    outcome: 'success',
    charged: 1,
    error: null,
  });
}

async function conversation(source: string, userId: number | null, valid: boolean, title = 'c') {
  const now = new Date().toISOString();
  await conversationRepository(t.ctx.dbHandle.db).insert({
    conversation_id: randomUUID(),
    source,
    title,
    user_id: userId,
    is_valid: valid ? 1 : 0,
    is_public: 0,
    current_model: 'gpt_3_5',
    current_node: null,
    server_id: null,
    plugin_ids: null,
    create_time: now,
    update_time: now,
  });
}

describe('system info', () => {
  it('counts users and the conversations of both sources', async () => {
    const before = (await get('/api/system/info')).json().result;
    await conversation('openai_web', user.id, true);
    await conversation('openai_web', user.id, false);
    await conversation('openai_api', null, true);
    await t.createUser();
    const r = await get('/api/system/info');
    expect(r.statusCode).toBe(200);
    const info = r.json().result;
    expect(info.startup_time).toBe(t.ctx.startupTime);
    expect(info.total_user_count).toBe(before.total_user_count + 1);
    expect(info.total_conversation_count).toBe(before.total_conversation_count + 3);
    expect(info.valid_conversation_count).toBe(before.valid_conversation_count + 2);
    expect(
      info.conversations_by_source.openai_web.total - before.conversations_by_source.openai_web.total,
    ).toBe(2);
    expect(
      info.conversations_by_source.openai_api.valid - before.conversations_by_source.openai_api.valid,
    ).toBe(1);
  });
});

describe('statistics', () => {
  beforeAll(async () => {
    await askAt('2019-12-31T23:59:59.000Z', 'openai_web', 'gpt_4', 1); // before the range
    await askAt('2020-01-01T00:10:00.000Z', 'openai_web', 'gpt_4', 1, 2, 1);
    await askAt('2020-01-01T00:20:00.000Z', 'openai_web', 'gpt_4', 2, 3, 0.5);
    await askAt('2020-01-01T00:40:00.000Z', 'openai_web', 'gpt_4', 1, 4, 0);
    await askAt('2020-01-01T00:41:00.000Z', 'openai_web', 'gpt_3_5', 1, 1, 0);
    await askAt('2020-01-01T01:05:00.000Z', 'openai_api', 'gpt_3_5', 3, 5, 2);
    await askAt('2020-01-01T02:00:00.000Z', 'openai_api', 'gpt_3_5', 3); // at the (exclusive) end
    const row = (time: string, route: string, ms: number, userId: number | null) => ({
      time,
      route_path: route,
      method: 'GET',
      user_id: userId,
      elapsed_ms: ms,
      status: 200,
    });
    await requestLogRepository(t.ctx.dbHandle.db).insertMany([
      row('2020-01-01T00:05:00.000Z', '/api/conv', 10, 1),
      row('2020-01-01T00:06:00.000Z', '/api/conv', 20, 2),
      row('2020-01-01T00:07:00.000Z', '/api/conv', 30, 1),
      row('2020-01-01T00:08:00.000Z', '/api/user/me', 4, null),
      row('2020-01-01T03:00:00.000Z', '/api/conv', 50, 1),
      row('2020-01-02T00:00:00.000Z', '/api/conv', 99, 1), // outside
    ]);
  });

  const range = 'start_time=2020-01-01T00:00:00Z&end_time=2020-01-01T02:00:00Z';

  it('buckets asks by granularity within the range, ascending', async () => {
    const r = await get(`/api/system/stats/ask?granularity=1800&${range}`);
    expect(r.statusCode).toBe(200);
    expect(r.json().result).toEqual([
      {
        _id: { start_time: '2020-01-01T00:00:00.000Z', meta: { source: 'openai_web', model: 'gpt_4' } },
        count: 2,
        user_ids: [1, 2],
        total_ask_time: 5,
        total_queueing_time: 1.5,
      },
      {
        _id: { start_time: '2020-01-01T00:30:00.000Z', meta: { source: 'openai_web', model: 'gpt_3_5' } },
        count: 1,
        user_ids: [1],
        total_ask_time: 1,
        total_queueing_time: 0,
      },
      {
        _id: { start_time: '2020-01-01T00:30:00.000Z', meta: { source: 'openai_web', model: 'gpt_4' } },
        count: 1,
        user_ids: [1],
        total_ask_time: 4,
        total_queueing_time: 0,
      },
      {
        _id: { start_time: '2020-01-01T01:00:00.000Z', meta: { source: 'openai_api', model: 'gpt_3_5' } },
        count: 1,
        user_ids: [3],
        total_ask_time: 5,
        total_queueing_time: 2,
      },
    ]);
    const hourly = (await get(`/api/system/stats/ask?granularity=3600&${range}`)).json().result;
    expect(hourly.map((b: { count: number }) => b.count)).toEqual([1, 3, 1]);
    const day = (
      await get(
        '/api/system/stats/ask?granularity=86400&start_time=2019-12-31T00:00:00Z&end_time=2020-01-02T00:00:00Z',
      )
    ).json().result;
    expect(
      day.map((b: { _id: { start_time: string }; count: number }) => [b._id.start_time, b.count]),
    ).toEqual([
      ['2019-12-31T00:00:00.000Z', 1],
      ['2020-01-01T00:00:00.000Z', 2], // openai_api gpt_3_5 (01:05 and 02:00)
      ['2020-01-01T00:00:00.000Z', 1], // openai_web gpt_3_5
      ['2020-01-01T00:00:00.000Z', 3], // openai_web gpt_4
    ]);
  });

  it('buckets requests per route and method with users and the mean time', async () => {
    const r = await get(
      `/api/system/stats/request?granularity=3600&start_time=2020-01-01T00:00:00Z&end_time=2020-01-01T06:00:00Z`,
    );
    expect(r.json().result).toEqual([
      {
        _id: { start_time: '2020-01-01T00:00:00.000Z', route_path: '/api/conv', method: 'GET' },
        count: 3,
        user_ids: [1, 2],
        avg_elapsed_ms: 20,
      },
      {
        _id: { start_time: '2020-01-01T00:00:00.000Z', route_path: '/api/user/me', method: 'GET' },
        count: 1,
        user_ids: [],
        avg_elapsed_ms: 4,
      },
      {
        _id: { start_time: '2020-01-01T03:00:00.000Z', route_path: '/api/conv', method: 'GET' },
        count: 1,
        user_ids: [1],
        avg_elapsed_ms: 50,
      },
    ]);
  });

  it('answers JSON text that its response schema reads as is, in the envelope', async () => {
    for (const g of [1800, 3600]) {
      for (const [kind, bucket] of [
        ['ask', AskStatsBucket],
        ['request', RequestStatsBucket],
      ] as const) {
        const r = await get(
          `/api/system/stats/${kind}?granularity=${g}&start_time=2019-12-31T23:00:00Z&end_time=2020-01-01T04:17:00Z`,
        );
        expect(r.statusCode).toBe(200);
        expect(r.headers['content-type']).toBe('application/json; charset=utf-8');
        const body = r.json();
        expect(body.code).toBe(200);
        expect(body.message).toBe(TIPS.requestSuccess);
        expect(body.result.length).toBeGreaterThan(0);
        // Parsing strips any key the schema does not know: equal means none.
        expect(envelope(z.array(bucket)).parse(body)).toEqual(body);
      }
    }
  });

  it('refuses a granularity outside the list and an inverted range (422 with detail)', async () => {
    const bad = await get('/api/system/stats/ask?granularity=60');
    expect(bad.statusCode).toBe(422);
    expect(bad.json().result.detail[0].loc).toEqual(['querystring', 'granularity']);
    const inverted = await get(
      '/api/system/stats/request?start_time=2020-01-02T00:00:00Z&end_time=2020-01-01T00:00:00Z',
    );
    expect(inverted.statusCode).toBe(422);
    // The default range is the last 24 hours: none of the 2020 rows.
    const recent = (await get('/api/system/stats/ask')).json().result;
    expect(recent.every((b: { _id: { start_time: string } }) => b._id.start_time > '2021')).toBe(true);
  });
});

describe('logs', () => {
  it('returns the last lines of the server log, skipping excluded ones, continuing into the rotated file', async () => {
    const file = serverLogFile(t.ctx.config);
    mkdirSync(path.dirname(file), { recursive: true });
    writeFileSync(`${file}.1`, ['old 1', 'old 2', 'old 3 secret-ish', ''].join('\n'));
    writeFileSync(file, ['new 1', 'new 2 noisy', 'new 3', ''].join('\n'));
    const post = (payload: object) =>
      t.app.inject({ method: 'POST', url: '/api/system/logs/server', headers: { cookie: admin }, payload });
    expect((await post({ max_lines: 2 })).json().result).toEqual(['new 2 noisy', 'new 3']);
    expect((await post({ max_lines: 5, exclude_keywords: ['noisy', 'secret'] })).json().result).toEqual([
      'old 1',
      'old 2',
      'new 1',
      'new 3',
    ]);
    expect((await post({})).json().result).toHaveLength(6);
    const tooMany = await post({ max_lines: 5001 });
    expect(tooMany.statusCode).toBe(422);
    expect(tooMany.json().result.detail[0].loc).toEqual(['body', 'max_lines']);
  });

  it('lists completion logs newest first within a time filter', async () => {
    const all = (await get('/api/system/logs/completions?max_results=1000')).json().result;
    expect(all.length).toBeGreaterThanOrEqual(7);
    const times = all.map((l: { time: string }) => l.time);
    expect([...times].sort().reverse()).toEqual(times);
    const filtered = (
      await get('/api/system/logs/completions?start_time=2020-01-01T00:15:00Z&end_time=2020-01-01T01:00:00Z')
    ).json().result;
    expect(filtered.map((l: { time: string; model: string }) => [l.time, l.model])).toEqual([
      ['2020-01-01T00:41:00.000Z', 'gpt_3_5'],
      ['2020-01-01T00:40:00.000Z', 'gpt_4'],
      ['2020-01-01T00:20:00.000Z', 'gpt_4'],
    ]);
    expect(filtered[0]).toMatchObject({ source: 'openai_web', charged: true, outcome: 'success' });
    expect((await get('/api/system/logs/completions?max_results=2')).json().result).toHaveLength(2);
  });
});

describe('config and credentials', () => {
  const put = (url: string, payload: unknown) =>
    t.app.inject({ method: 'PUT', url, headers: { cookie: admin }, payload: payload as object });

  it('round-trips the config, masks its secrets, applies upstream changes live and names restart-only keys', async () => {
    const read = (await get('/api/system/config')).json().result as ConfigWriteInput;
    expect(read.common?.initial_admin_user_password).toBe(MASKED_SECRET);
    expect(read.auth?.jwt_secret).toBeNull();

    const same = await put('/api/system/config', read);
    expect(same.statusCode).toBe(200);
    expect(same.json().result.restart_required).toEqual([]);

    // Boot-only keys (listen address, database, secrets, logging, boot admin) cannot be changed here.
    const bootOnly = await put('/api/system/config', {
      ...read,
      http: { ...read.http, port: 9000 },
      log: { ...read.log, console_log_level: 'DEBUG' },
    });
    expect(bootOnly.statusCode).toBe(422);
    expect(bootOnly.json().result.detail).toEqual([
      { loc: ['body', 'http', 'port'], msg: 'validation.bootstrapOnly', type: 'bootstrap_only' },
      { loc: ['body', 'log', 'console_log_level'], msg: 'validation.bootstrapOnly', type: 'bootstrap_only' },
    ]);
    expect(t.ctx.runtime.current().http.port).toBe(read.http?.port);

    const changed = await put('/api/system/config', {
      ...read,
      openai_web: { ...read.openai_web, ask_timeout: 123, sync_conversations_on_startup: false },
    });
    expect(changed.statusCode).toBe(200);
    expect(changed.json().result.restart_required).toEqual(['openai_web.sync_conversations_on_startup']);
    expect(changed.json().result.config.openai_web.ask_timeout).toBe(123);
    expect(t.ctx.runtime.current().openai_web.ask_timeout).toBe(123);
    const slot = t.ctx.upstream.servers('openai_web')[0]!;
    expect(t.ctx.upstream.target('openai_web', slot).readTimeoutMs).toBe(123_000);
    // Stored in the settings table (shared by instances), without the admin password.
    const stored = await settingsRepository(t.ctx.dbHandle.db).get('config');
    expect(JSON.parse(stored!).openai_web.ask_timeout).toBe(123);
    expect(stored).not.toContain(ADMIN.password);
    expect((await get('/api/system/config')).json().result.common.initial_admin_user_password).toBe(
      MASKED_SECRET,
    );
  });

  it('refuses values outside the SPEC §5 bounds with 422 and a detail per field', async () => {
    const read = (await get('/api/system/config')).json().result as ConfigWriteInput;
    const r = await put('/api/system/config', {
      ...read,
      openai_web: { ...read.openai_web, common_timeout: 0, sync_conversations_schedule_interval_hours: 0 },
      openai_api: { ...read.openai_api, read_timeout: 0 },
      http: { ...read.http, port: 70000 },
      data: { ...read.data, max_file_upload_size: -1 },
      stats: { ...read.stats, ask_stats_ttl: -2 },
    });
    expect(r.statusCode).toBe(422);
    const locs = r.json().result.detail.map((d: { loc: (string | number)[] }) => d.loc.join('.'));
    expect(locs).toEqual(
      expect.arrayContaining([
        'body.openai_web.common_timeout',
        'body.openai_web.sync_conversations_schedule_interval_hours',
        'body.openai_api.read_timeout',
        'body.http.port',
        'body.data.max_file_upload_size',
        'body.stats.ask_stats_ttl',
      ]),
    );
    expect(r.json().result.detail[0].msg).toBeTruthy();
    expect(t.ctx.runtime.current().openai_web.common_timeout).toBe(read.openai_web!.common_timeout);
  });

  it('refuses keeping a log for 0 seconds (the whole log would go at the next cleanup), with the reason', async () => {
    const read = (await get('/api/system/config')).json().result as ConfigWriteInput;
    for (const key of ['ask_stats_ttl', 'request_stats_ttl', 'audit_log_ttl'] as const) {
      const r = await put('/api/system/config', { ...read, stats: { ...read.stats, [key]: 0 } });
      expect(r.statusCode, key).toBe(422);
      expect(r.json().result.detail).toEqual([
        expect.objectContaining({ loc: ['body', 'stats', key], msg: 'validation.keepSeconds' }),
      ]);
    }
    expect(t.ctx.runtime.current().stats.ask_stats_ttl).toBe(read.stats!.ask_stats_ttl);
    for (const seconds of [-1, 1]) {
      const r = await put('/api/system/config', {
        ...read,
        stats: { ...read.stats, ask_stats_ttl: seconds },
      });
      expect(r.statusCode, String(seconds)).toBe(200);
    }
    // A 0 saved before this rule still reads (and the rest of the saved config with it).
    const current = t.ctx.runtime.current();
    await t.ctx.runtime.save({ ...current, stats: { ...current.stats, ask_stats_ttl: 0 } });
    const after = await get('/api/system/config');
    expect(after.statusCode).toBe(200);
    expect(after.json().result.stats.ask_stats_ttl).toBe(0);
    await t.ctx.runtime.save(current);
  });

  it('serves JSON Schemas of the config and credentials with the bounds', async () => {
    const r = (await get('/api/system/config/schema')).json().result;
    const web = r.config.properties.openai_web.properties;
    expect(web.common_timeout.minimum).toBe(1);
    expect(web.sync_conversations_schedule_interval_hours.minimum).toBe(1);
    expect(r.config.properties.http.properties.port).toMatchObject({ minimum: 1, maximum: 65535 });
    expect(r.config.properties.data.properties.max_file_upload_size.minimum).toBe(0);
    expect(Object.keys(r.credentials.properties).sort()).toEqual([
      'openai_api_key',
      'openai_web_access_token',
    ]);
    expect(r.restart_required_keys).toContain('openai_web.sync_conversations_on_startup');
    expect(r.bootstrap_only_keys).toContain('http.');
  });

  it('masks the password of proxy URLs; the mask sent back keeps it, a changed URL must give it again', async () => {
    const read = (await get('/api/system/config')).json().result as ConfigWriteInput;
    const webProxy = 'http://squid:web-proxy-pw@proxy.lan:3128';
    const apiProxy = 'https://:api-proxy-pw@proxy.lan:8443/';
    try {
      const saved = await put('/api/system/config', {
        ...read,
        openai_web: { ...read.openai_web, proxy: webProxy },
        openai_api: { ...read.openai_api, proxy: apiProxy },
      });
      expect(saved.statusCode, saved.body).toBe(200);
      const shown = (await get('/api/system/config')).json().result as ConfigWriteInput;
      expect(shown.openai_web?.proxy).toBe(`http://squid:${MASKED_SECRET}@proxy.lan:3128`);
      expect(shown.openai_api?.proxy).toBe(`https://:${MASKED_SECRET}@proxy.lan:8443/`);
      expect(saved.body).not.toContain('proxy-pw');

      const again = await put('/api/system/config', {
        ...shown,
        openai_web: { ...shown.openai_web, ask_timeout: 77 },
      });
      expect(again.statusCode, again.body).toBe(200);
      expect(again.body).not.toContain('proxy-pw');
      expect(t.ctx.runtime.current().openai_web.proxy).toBe(webProxy);
      expect(t.ctx.runtime.current().openai_api.proxy).toBe(apiProxy);

      // The mask is no password: with another host or user it would have to mean the old one elsewhere.
      const moved = await put('/api/system/config', {
        ...shown,
        openai_web: { ...shown.openai_web, proxy: `http://squid:${MASKED_SECRET}@elsewhere.example:3128` },
      });
      expect(moved.statusCode).toBe(422);
      expect(moved.json().result.detail).toEqual([
        { loc: ['body', 'openai_web', 'proxy'], msg: 'validation.maskedPassword', type: 'masked_password' },
      ]);
      expect(t.ctx.runtime.current().openai_web.proxy).toBe(webProxy);
    } finally {
      await put('/api/system/config', read);
    }
    expect(t.ctx.runtime.current().openai_web.proxy).toBe(read.openai_web?.proxy);
  });

  it('masks the passwords of database_url and redis_url (boot-only), and the masked config saves unchanged', async () => {
    const boot = loadConfig(
      { CC_DATA_DIR: t.ctx.config.data.data_dir },
      {
        overrides: {
          data: {
            database_url: 'postgres://cc:db-pw@db.lan:5432/cc?sslmode=require',
            redis_url: 'redis://:redis-pw@cache.lan:6379/0',
          },
        },
      },
    );
    // The same database and sessions, as an instance started with those URLs would show them (never connected).
    const ctx = { ...t.ctx, config: boot, runtime: createRuntimeSettings(boot, t.ctx.dbHandle.db) };
    await ctx.runtime.load();
    const app = await buildApp(ctx, { webDist: null });
    try {
      const read = await app.inject({ method: 'GET', url: '/api/system/config', headers: { cookie: admin } });
      expect(read.statusCode).toBe(200);
      expect(read.json().result.data).toMatchObject({
        database_url: `postgres://cc:${MASKED_SECRET}@db.lan:5432/cc?sslmode=require`,
        redis_url: `redis://:${MASKED_SECRET}@cache.lan:6379/0`,
      });
      expect(read.body).not.toMatch(/db-pw|redis-pw/);
      const saved = await app.inject({
        method: 'PUT',
        url: '/api/system/config',
        headers: { cookie: admin },
        payload: read.json().result as object,
      });
      expect(saved.statusCode, saved.body).toBe(200);
      expect(saved.json().result.restart_required).toEqual([]);
      expect(ctx.runtime.current().data.database_url).toBe(boot.data.database_url);
      expect(ctx.runtime.current().data.redis_url).toBe(boot.data.redis_url);
      expect(await settingsRepository(t.ctx.dbHandle.db).get('config')).not.toMatch(/db-pw|redis-pw/);
    } finally {
      await app.close();
    }
  });

  it('keeps credentials write-only: masked on read, sealed at rest, the mask keeps the stored value', async () => {
    expect((await get('/api/system/credentials')).json().result).toEqual({
      openai_web_access_token: null,
      openai_api_key: null,
    });
    const secret = 'sk-test-very-secret-0123456789';
    const saved = await put('/api/system/credentials', { openai_api_key: secret });
    expect(saved.json().result).toEqual({ openai_web_access_token: null, openai_api_key: MASKED_SECRET });
    expect(saved.body).not.toContain(secret);
    expect(t.ctx.upstream.credentials().openai_api_key).toBe(secret);
    const sealed = await settingsRepository(t.ctx.dbHandle.db).get('credentials');
    expect(sealed).toBeTruthy();
    expect(sealed).not.toContain(secret);

    await put('/api/system/credentials', {
      openai_api_key: MASKED_SECRET,
      openai_web_access_token: 'web-token-xyz',
    });
    expect(t.ctx.upstream.credentials()).toEqual({
      openai_api_key: secret,
      openai_web_access_token: 'web-token-xyz',
    });
    expect((await get('/api/system/credentials')).json().result).toEqual({
      openai_web_access_token: MASKED_SECRET,
      openai_api_key: MASKED_SECRET,
    });
    await put('/api/system/credentials', { openai_api_key: null, openai_web_access_token: null });
    expect(t.ctx.upstream.credentials()).toEqual({ openai_api_key: null, openai_web_access_token: null });
  });
});

describe('request logging of the log viewer', () => {
  it("does not log the viewer's own polling at INFO; other requests still are", async () => {
    const lines: { level: number; req?: { url?: string }; msg?: string }[] = [];
    const sink = new Writable({
      write(chunk: Buffer, _enc, done) {
        for (const line of chunk.toString().split('\n'))
          if (line) lines.push(JSON.parse(line) as (typeof lines)[0]);
        done();
      },
    });
    const logged = await createTestApp({}, undefined, { log: pino({ level: 'info' }, sink) });
    try {
      const cookie = await logged.login(ADMIN.username, ADMIN.password);
      const inject = (method: 'GET' | 'POST', url: string) =>
        logged.app.inject({ method, url, headers: { cookie }, payload: method === 'POST' ? {} : undefined });
      expect((await inject('POST', '/api/system/logs/server')).statusCode).toBe(200);
      expect((await inject('GET', '/api/system/logs/completions')).statusCode).toBe(200);
      expect((await inject('GET', '/api/user/me')).statusCode).toBe(200);
      const urls = lines.filter((l) => l.level === 30 && l.req?.url).map((l) => l.req?.url);
      expect(urls).toContain('/api/user/me');
      expect(urls.filter((u) => u?.startsWith('/api/system/logs'))).toEqual([]);
    } finally {
      await logged.close();
    }
  });
});
