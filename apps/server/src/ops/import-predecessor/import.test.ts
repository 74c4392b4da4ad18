import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import SQLite from 'better-sqlite3';
import bcrypt from 'bcryptjs';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { ConversationHistory, UserReadAdmin } from '@cc/contracts';
import { askLogRepository } from '../../repositories/ask-log.repository';
import { conversationRepository } from '../../repositories/conversation.repository';
import { userRepository } from '../../repositories/user.repository';
import { ADMIN, createTestApp } from '../../test/harness';
import type { TestApp } from '../../test/harness';
import { runImportCli } from './cli';
import { importPredecessor } from './import';
import type { PredecessorData } from './import';
import { readDocuments } from './read-documents';
import { readPredecessorSql } from './read-sql';

/** The predecessor's tables as SQLAlchemy created them on SQLite (reference §0, §1.2, §7). */
const DDL = `
CREATE TABLE user (
  id INTEGER NOT NULL PRIMARY KEY, username VARCHAR(32) NOT NULL UNIQUE, nickname VARCHAR(64) NOT NULL,
  email VARCHAR NOT NULL, last_active_time DATETIME, create_time DATETIME DEFAULT (CURRENT_TIMESTAMP) NOT NULL,
  avatar VARCHAR, valid_until DATETIME, remark VARCHAR(256), is_superuser BOOLEAN NOT NULL,
  is_active BOOLEAN NOT NULL, is_verified BOOLEAN NOT NULL, hashed_password VARCHAR(1024) NOT NULL);
CREATE TABLE user_setting (
  id INTEGER NOT NULL PRIMARY KEY, user_id INTEGER NOT NULL REFERENCES user (id), credits FLOAT NOT NULL,
  openai_web_chat_status VARCHAR(8) NOT NULL, openai_web JSON NOT NULL, openai_api JSON NOT NULL);
CREATE TABLE conversation (
  id INTEGER NOT NULL PRIMARY KEY, source VARCHAR(10) NOT NULL, conversation_id CHAR(32) NOT NULL UNIQUE,
  current_model VARCHAR, title VARCHAR, user_id INTEGER REFERENCES user (id), is_valid BOOLEAN NOT NULL,
  create_time DATETIME, update_time DATETIME);
CREATE TABLE alembic_version (version_num VARCHAR(32) NOT NULL PRIMARY KEY);
`;

const ALICE_PASSWORD = 'alice-old-pass';

function webSettings(over: Record<string, unknown> = {}) {
  return {
    allow_to_use: true,
    valid_until: null,
    max_conv_count: 10,
    total_ask_count: -1,
    rate_limits: [{ window_seconds: 60, max_requests: 1 }],
    daily_available_time_slots: [{ start_time: '00:00:00', end_time: '23:59:59' }],
    available_models: ['gpt_3_5', 'gpt_4'],
    per_model_ask_count: {},
    disable_uploading: false,
    use_team: false,
    ...over,
  };
}

function apiSettings(over: Record<string, unknown> = {}) {
  return {
    allow_to_use: true,
    valid_until: null,
    max_conv_count: 10,
    total_ask_count: -1,
    rate_limits: [],
    daily_available_time_slots: [{ start_time: '00:00:00', end_time: '23:59:59' }],
    available_models: ['gpt_3_5', 'gpt_4'],
    per_model_ask_count: {},
    allow_custom_openai_api: false,
    custom_openai_api_settings: { url: null, key: null },
    ...over,
  };
}

// Conversation ids: SQLAlchemy's GUID keeps 32 hex digits in SQLite; the documents use the dashed form.
const API_CONV = '11111111-1111-4111-8111-111111111111';
const WEB_CONV = '22222222-2222-4222-8222-222222222222';
const NEVER_OPENED = '33333333-3333-4333-8333-333333333333';
const ORPHAN_OWNER = '44444444-4444-4444-8444-444444444444';
const VANISHED = '55555555-5555-4555-8555-555555555555';
const REUSED_IDS = '66666666-6666-4666-8666-666666666666';
const hex = (uuid: string) => uuid.replace(/-/g, '');

/** An API history with an edited second question (two branches), with the predecessor's `children` bug. */
function apiHistory() {
  const msg = (id: string, role: string, parent: string | null, text: string, minute: number) => ({
    id,
    source: 'openai_api',
    role,
    model: role === 'assistant' ? 'gpt_4' : null,
    create_time: { $date: `2024-02-01T10:${String(minute).padStart(2, '0')}:00.000Z` },
    parent,
    children: [],
    content: { content_type: 'text', text },
    metadata: role === 'assistant' ? { source: 'openai_api', usage: null, finish_reason: 'stop' } : null,
  });
  const mapping = {
    'u-1': msg('u-1', 'user', null, 'first question', 0),
    'a-1': { ...msg('a-1', 'assistant', 'u-1', 'first answer', 1), children: ['a-2', 'a-3'] },
    'u-2': msg('u-2', 'user', 'a-1', 'second question', 2),
    'a-2': msg('a-2', 'assistant', 'u-2', 'second answer', 3),
    'u-3': msg('u-3', 'user', 'a-1', 'second question, edited', 4),
    'a-3': msg('a-3', 'assistant', 'u-3', 'answer to the edit', 5),
  };
  return {
    _id: API_CONV,
    source: 'openai_api',
    title: 'API chat',
    create_time: { $date: '2024-02-01T10:00:00.000Z' },
    update_time: { $date: '2024-02-01T10:05:00.000Z' },
    mapping,
    current_node: 'a-3',
    current_model: 'gpt_4',
  };
}

function webHistory() {
  return {
    _id: WEB_CONV,
    source: 'openai_web',
    title: 'Web chat',
    create_time: { $date: '2024-02-02T08:00:00.000Z' },
    update_time: { $date: '2024-02-02T08:01:00.000Z' },
    mapping: {
      root: {
        id: 'root',
        source: 'openai_web',
        role: 'system',
        parent: null,
        children: ['w-1'],
        content: null,
      },
      'w-1': {
        id: 'w-1',
        source: 'openai_web',
        role: 'user',
        create_time: 1706860800.5,
        parent: 'root',
        children: ['w-2'],
        content: { content_type: 'text', parts: ['hello web'] },
      },
      'w-2': {
        id: 'w-2',
        source: 'openai_web',
        role: 'assistant',
        model: 'gpt_4',
        create_time: 1706860805.25,
        parent: 'w-1',
        children: [],
        content: { content_type: 'text', parts: ['hi from the web'] },
        metadata: { finish_details: { type: 'stop' }, message_status: 'finished_successfully' },
      },
    },
    current_node: 'w-2',
    current_model: 'gpt_4',
    metadata: { source: 'openai_web', plugin_ids: null, moderation_results: [] },
  };
}

interface Fixture {
  dir: string;
  sqlFile: string;
  conversationsFile: string;
  askLogsFile: string;
}

function writeFixture(): Fixture {
  const dir = mkdtempSync(path.join(tmpdir(), 'cc-predecessor-'));
  const sqlFile = path.join(dir, 'database.db');
  const db = new SQLite(sqlFile);
  db.pragma('foreign_keys = OFF'); // SQLite's default, under which the predecessor ran
  db.exec(DDL);
  const user = db.prepare(
    `INSERT INTO user (id, username, nickname, email, last_active_time, create_time, avatar, valid_until, remark,
       is_superuser, is_active, is_verified, hashed_password) VALUES (?, ?, ?, ?, ?, ?, NULL, NULL, ?, ?, ?, 0, ?)`,
  );
  const setting = db.prepare(
    `INSERT INTO user_setting (user_id, credits, openai_web_chat_status, openai_web, openai_api)
     VALUES (?, 0, ?, ?, ?)`,
  );
  // passlib bcrypt ($2b$); a low cost keeps the test fast, the format is the same.
  user.run(
    1,
    'admin',
    'admin',
    'admin@admin.com',
    null,
    '2023-06-01 00:00:00',
    null,
    1,
    1,
    bcrypt.hashSync('x', 4),
  );
  user.run(
    2,
    'alice',
    'Alice',
    'alice@example.com',
    '2024-02-01 10:05:00.123456',
    '2023-07-01 12:30:00.000000',
    'moved over',
    0,
    1,
    bcrypt.hashSync(ALICE_PASSWORD, 4),
  );
  // A hash format we do not verify (e.g. one set by hand): the account must get a new password.
  user.run(
    3,
    'bob',
    'Bob',
    'bob@example.com',
    null,
    '2023-08-01 00:00:00',
    null,
    0,
    1,
    '$pbkdf2-sha256$29000$abc$def',
  );
  user.run(
    4,
    'carol smith',
    'Carol',
    'carol@example.com',
    null,
    '2023-08-02 00:00:00',
    null,
    0,
    1,
    '$2b$12$x',
  );
  setting.run(1, 'idling', JSON.stringify(webSettings()), JSON.stringify(apiSettings()));
  setting.run(
    2,
    'asking',
    JSON.stringify(
      webSettings({
        available_models: ['gpt_3_5', 'gpt_4', 'gpt_4o'],
        per_model_ask_count: { gpt_3_5: 5, gpt_4: -1, gpt_4o: 3 },
        daily_available_time_slots: [{ start_time: '09:00:00', end_time: '18:00:00' }],
        disable_uploading: true,
        use_team: true,
      }),
    ),
    JSON.stringify(
      apiSettings({
        total_ask_count: 20,
        per_model_ask_count: { gpt_4: 2 },
        allow_custom_openai_api: true,
        custom_openai_api_settings: { url: 'https://proxy.example.com/v1/', key: 'sk-old-key' },
      }),
    ),
  );
  setting.run(3, 'idling', JSON.stringify(webSettings()), JSON.stringify(apiSettings()));
  setting.run(4, 'idling', JSON.stringify(webSettings()), JSON.stringify(apiSettings()));
  const conv = db.prepare(
    `INSERT INTO conversation (source, conversation_id, current_model, title, user_id, is_valid, create_time, update_time)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
  );
  conv.run(
    'openai_api',
    hex(API_CONV),
    'gpt_4',
    'API chat',
    2,
    1,
    '2024-02-01 10:00:00',
    '2024-02-01 10:05:00',
  );
  conv.run(
    'openai_web',
    hex(WEB_CONV),
    'gpt_4',
    'Web chat',
    2,
    1,
    '2024-02-02 08:00:00',
    '2024-02-02 08:01:00',
  );
  conv.run('openai_web', hex(NEVER_OPENED), 'gpt_3_5', 'Never opened', 2, 0, '2024-02-03 08:00:00', null);
  // Its owner was deleted in the predecessor: the row kept a dangling user id.
  conv.run('openai_web', hex(ORPHAN_OWNER), 'gpt_3_5', 'Orphan', 99, 1, '2024-02-04 08:00:00', null);
  conv.run('openai_api', hex(REUSED_IDS), 'gpt_4', 'Reused ids', 2, 1, '2024-02-05 08:00:00', null);
  db.close();

  const conversationsFile = path.join(dir, 'conversations.json');
  // A document whose record an admin hard-deleted ("clear all" keeps the documents).
  const vanished = { ...webHistory(), _id: VANISHED };
  // Message ids of another conversation (they are unique here): reported, not merged into the other one.
  const reused = { ...apiHistory(), _id: REUSED_IDS };
  writeFileSync(conversationsFile, JSON.stringify([apiHistory(), webHistory(), vanished, reused]));
  const askLogsFile = path.join(dir, 'ask_logs.json');
  const log = (minute: number, userId: number, model: string) =>
    JSON.stringify({
      _id: { $oid: `65bb00000000000000000${minute}` },
      time: { $date: `2024-02-01T10:0${minute}:00.000Z` },
      meta: { source: 'openai_api', model },
      user_id: userId,
      conversation_id: API_CONV,
      queueing_time: 0,
      ask_time: 2.5,
    });
  writeFileSync(
    askLogsFile,
    [
      log(1, 2, 'gpt_4'),
      log(3, 2, 'gpt_4'),
      log(5, 2, 'gpt_4'),
      JSON.stringify({ time: { $date: 'x' } }),
    ].join('\n'),
  );
  return { dir, sqlFile, conversationsFile, askLogsFile };
}

function loadFixture(f: Fixture): PredecessorData {
  return {
    sql: readPredecessorSql(f.sqlFile),
    conversations: readDocuments(f.conversationsFile),
    askLogs: readDocuments(f.askLogsFile),
  };
}

let fixture: Fixture;
beforeAll(() => {
  fixture = writeFixture();
});
afterAll(() => rmSync(fixture.dir, { recursive: true, force: true }));

async function login(t: TestApp, username: string, password: string) {
  return t.app.inject({
    method: 'POST',
    url: '/api/auth/login',
    payload: new URLSearchParams({ username, password }).toString(),
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
  });
}

describe('import from the predecessor', () => {
  let t: TestApp;
  afterEach(async () => {
    await t.close();
  });

  it('creates users, settings, conversations and ask logs once; a re-run adds nothing', async () => {
    t = await createTestApp();
    const deps = { db: t.ctx.dbHandle.db, secretBox: t.ctx.secretBox };
    const summary = await importPredecessor(deps, loadFixture(fixture), { utcOffsetMinutes: 8 * 60 });
    expect(summary.users).toEqual({ created: 2, already: 1, skipped: 0, failed: 1 });
    expect(summary.conversations).toEqual({ created: 4, already: 0, skipped: 1, failed: 1 });
    expect(summary.askLogs).toEqual({ created: 3, already: 0, skipped: 0, failed: 1 });
    expect(summary.messages).toBe(9);
    expect(summary.passwordResets).toEqual(['bob']);
    expect(summary.problems).toEqual(
      expect.arrayContaining([
        expect.stringContaining('user 4 "carol smith"'),
        expect.stringContaining(`conversation ${VANISHED}: no conversation record`),
        expect.stringContaining(`conversation ${ORPHAN_OWNER}: owner 99 not imported`),
        expect.stringContaining('ask log #4'),
        expect.stringContaining(
          `conversation ${REUSED_IDS}: message u-1 already belongs to conversation ${API_CONV}`,
        ),
      ]),
    );

    // Alice keeps her password; the bcrypt hash is replaced by ours at that login.
    const users = userRepository(t.ctx.dbHandle.db);
    expect((await login(t, 'alice', ALICE_PASSWORD)).statusCode).toBe(200);
    expect((await users.findByUsername('alice'))?.hashed_password).toMatch(/^\$argon2id\$/);
    expect((await login(t, 'alice', ALICE_PASSWORD)).statusCode).toBe(200);
    expect((await login(t, 'alice', 'wrong-password')).statusCode).toBe(401);

    // Bob is told to ask an administrator, who sets a new password.
    const bobLogin = await login(t, 'bob', 'anything-at-all');
    expect(bobLogin.statusCode).toBe(401);
    expect(bobLogin.json()).toMatchObject({ code: 10401, message: 'errors.passwordResetRequired' });
    const admin = await t.login(ADMIN.username, ADMIN.password);
    const bob = await users.findByUsername('bob');
    const marked = async () => {
      const list = await t.app.inject({ method: 'GET', url: '/api/user', headers: { cookie: admin } });
      return list
        .json<{ result: UserReadAdmin[] }>()
        .result.filter((u) => u.password_reset_required)
        .map((u) => u.username);
    };
    expect(await marked()).toEqual(['bob']);
    const reset = await t.app.inject({
      method: 'PATCH',
      url: `/api/user/${bob?.id}`,
      headers: { cookie: admin },
      payload: { password: 'bob-new-pass' },
    });
    expect(reset.statusCode).toBe(200);
    expect((await login(t, 'bob', 'bob-new-pass')).statusCode).toBe(200);
    expect(await marked()).toEqual([]);

    // Settings, with the meanings translated.
    const alice = await users.findByUsername('alice');
    const read = await t.app.inject({
      method: 'GET',
      url: `/api/user/${alice?.id}`,
      headers: { cookie: admin },
    });
    const setting = read.json<{ result: UserReadAdmin }>().result.setting;
    expect(setting.credits).toBe(-1);
    expect(setting.openai_web.available_models).toEqual(['gpt_3_5', 'gpt_4']);
    expect(setting.openai_web.per_model_ask_count).toEqual({
      gpt_3_5: 5,
      gpt_3_5_mobile: 0,
      gpt_4: -1,
      gpt_4_mobile: 0,
      gpt_4_browsing: 0,
      gpt_4_code_interpreter: 0,
      gpt_4_plugins: 0,
      gpt_4_dalle: 0,
    });
    expect(setting.openai_web.daily_available_time_slots).toEqual([
      { start_time: '01:00:00', end_time: '10:00:00' },
    ]);
    expect(setting.openai_web.rate_limits).toEqual([]);
    expect(setting.openai_web.allow_uploading_attachments).toBe(false);
    expect(setting.openai_api.total_ask_count).toBe(20);
    expect(setting.openai_api.per_model_ask_count).toEqual({ gpt_3_5: 0, gpt_4: 2 });
    expect(setting.openai_api.daily_available_time_slots).toEqual([]);
    expect(setting.openai_api.custom_openai_api_settings).toEqual({
      url: 'https://proxy.example.com/v1/',
      key: '********',
    });
    expect(setting.openai_web_chat_status).toBe('idling');

    // The branched API conversation opens with its whole tree and current node.
    const aliceCookie = await t.login('alice', ALICE_PASSWORD);
    const api = await t.app.inject({
      method: 'GET',
      url: `/api/conv/${API_CONV}`,
      headers: { cookie: aliceCookie },
    });
    const history = api.json<{ result: ConversationHistory }>().result;
    expect(Object.keys(history.mapping).sort()).toEqual(['a-1', 'a-2', 'a-3', 'u-1', 'u-2', 'u-3']);
    expect(history.current_node).toBe('a-3');
    expect(history.mapping['a-1']?.children).toEqual(['u-2', 'u-3']);
    expect(history.mapping['u-3']?.parent).toBe('a-1');
    expect(history.mapping['a-3']).toMatchObject({ content: { text: 'answer to the edit' }, model: 'gpt_4' });
    expect(history.mapping['u-1']?.create_time).toBe('2024-02-01T10:00:00.000Z');

    // The web one, with the upstream out of reach: served from the imported copy.
    t.ctx.upstream.webTarget = () => {
      throw new Error('upstream out of reach');
    };
    const web = await t.app.inject({
      method: 'GET',
      url: `/api/conv/${WEB_CONV}`,
      headers: { cookie: aliceCookie },
    });
    const webHistoryRead = web.json<{ result: ConversationHistory }>().result;
    expect(webHistoryRead).toMatchObject({ current_node: 'w-2', from_cache: true });
    expect(webHistoryRead.mapping['w-1']).toMatchObject({
      parent: 'root',
      children: ['w-2'],
      create_time: '2024-02-02T08:00:00.500Z',
    });
    const list = await t.app.inject({ method: 'GET', url: '/api/conv', headers: { cookie: aliceCookie } });
    const listed = list
      .json<{ result: { conversation_id: string }[] }>()
      .result.map((c) => c.conversation_id);
    expect(listed.sort()).toEqual([API_CONV, WEB_CONV]); // the invalid one stays hidden
    const conversations = conversationRepository(t.ctx.dbHandle.db);
    expect((await conversations.findByUuid(ORPHAN_OWNER))?.user_id).toBeNull();
    expect(await conversations.findByUuid(VANISHED)).toBeUndefined();
    expect(await conversations.findByUuid(REUSED_IDS)).toBeUndefined();

    const logs = await askLogRepository(t.ctx.dbHandle.db).listRecent({ limit: 10 });
    expect(logs.map((l) => [l.time, l.user_id, l.model, l.conversation_id])).toEqual(
      [5, 3, 1].map((m) => [`2024-02-01T10:0${m}:00.000Z`, alice?.id, 'gpt_4', API_CONV]),
    );

    const again = await importPredecessor(deps, loadFixture(fixture), { utcOffsetMinutes: 8 * 60 });
    expect(again.users).toEqual({ created: 0, already: 3, skipped: 0, failed: 1 });
    expect(again.conversations).toEqual({ created: 0, already: 4, skipped: 1, failed: 1 });
    expect(again.askLogs).toEqual({ created: 0, already: 3, skipped: 0, failed: 1 });
    expect(await askLogRepository(t.ctx.dbHandle.db).listRecent({ limit: 10 })).toHaveLength(3);
    expect(await users.count()).toBe(3);
  });

  it('--dry-run prints what it would do and writes nothing', async () => {
    t = await createTestApp();
    const env = {
      CC_DATA_DIR: t.database.dataDir,
      ...(t.database.url ? { CC_DATABASE_URL: t.database.url } : {}),
    };
    const args = [
      '--sql',
      'database.db',
      '--conversations',
      'conversations.json',
      '--ask-logs',
      'ask_logs.json',
    ];
    const out = await runImportCli([...args, '--dry-run', '--utc-offset', '+08:00'], env, fixture.dir);
    expect(out).toContain('Dry run: nothing was written.');
    expect(out).toContain('Users: 2 would create, 1 already imported, 0 skipped, 1 failed');
    expect(out).toContain(
      'Conversations: 4 would create, 0 already imported, 1 skipped, 1 failed (9 messages)',
    );
    expect(out).toContain('Ask logs: 3 would create');
    expect(out).toContain('need a new password (old hash format not verifiable): bob');
    const db = t.ctx.dbHandle.db;
    expect(await userRepository(db).count()).toBe(1);
    expect(await conversationRepository(db).countMatching()).toBe(0);
    expect(await askLogRepository(db).listRecent({ limit: 10 })).toEqual([]);
  });
});
