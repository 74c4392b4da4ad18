import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { randomUUID } from 'node:crypto';
import { Readable } from 'node:stream';
import { conversationRepository } from '../repositories/conversation.repository';
import { createGroup } from '../services/group.service';
import { addServer } from '../services/server.service';
import { presentConfig } from '../services/system-config.service';
import { relayToOpenaiWeb, startUpload, uploadLocalFile } from '../services/file.service';
import { userRepository } from '../repositories/user.repository';
import { multipartFile } from '../test/upload';
import { createInvite } from '../services/invite.service';
import { createShare } from '../services/share.service';
import { ask } from '../test/chat-client';
import { ADMIN, createTestApp, insertConversation } from '../test/harness';
import type { TestApp } from '../test/harness';

/**
 * Every route × {anonymous, user (the owner), another user, superuser} with the exact outcome.
 * `owner` is the user the route's {user_id} points at.
 */
type Actor = 'anonymous' | 'owner' | 'other' | 'superuser';
interface Case {
  method: 'GET' | 'POST' | 'PATCH' | 'PUT' | 'DELETE';
  url: string;
  expect: Record<Actor, number>;
  payload?: (ids: Ids) => unknown;
  form?: (ids: Ids) => Record<string, string>;
  /** A multipart body (uploads). */
  multipart?: () => { payload: Buffer; headers: Record<string, string> };
  /** Runs before each actor's request (fresh records for that request). */
  before?: () => Promise<void>;
}
interface Ids {
  owner: number;
  victim: number;
  ownerName: string;
  ownerPassword: string;
  /** The owner's web conversation. */
  conv: string;
  /** A message of that conversation. */
  convNode: string;
  /** A fresh conversation of the owner's, for destructive routes. */
  victimConv: string;
  plugin: string;
  victimMachine?: number;
  /** A fresh group, for the group routes. */
  victimGroup?: number;
}

const DENY_ADMIN = { anonymous: 10401, owner: 10403, other: 10403 } as const;
const OWNER_ONLY = { anonymous: 10401, owner: 200, other: 10403, superuser: 200 } as const;
const ANY_USER = { anonymous: 10401, owner: 200, other: 200, superuser: 200 } as const;

const settingsBody = (t: TestApp) => ({
  credits: 1,
  openai_web: t.ctx.config.user_defaults.openai_web,
  openai_api: t.ctx.config.user_defaults.openai_api,
});

/** A group template from the new-user defaults (without the own API endpoint, which stays each user's). */
const groupTemplate = (t: TestApp) => {
  const { custom_openai_api_settings: _custom, ...openai_api } = t.ctx.config.user_defaults.openai_api;
  return { openai_web: t.ctx.config.user_defaults.openai_web, openai_api };
};
const ADMIN_ACTOR = { id: null, name: 'test', address: null };

let t: TestApp;
let cookies: Record<Exclude<Actor, 'anonymous'>, string>;
let ids: Ids;
let seq = 0;
let baseUrl: string;

beforeAll(async () => {
  t = await createTestApp();
  const owner = await t.createUser();
  const other = await t.createUser();
  cookies = {
    owner: await t.login(owner.row.username, owner.password),
    other: await t.login(other.row.username, other.password),
    superuser: await t.login(ADMIN.username, ADMIN.password),
  };
  const url = await t.app.listen({ host: '127.0.0.1', port: 0 });
  baseUrl = url;
  const r = await ask(
    url,
    { source: 'openai_web', model: 'gpt_4', new_conversation: true, text_content: 'matrix' },
    { cookie: cookies.owner },
  );
  const first = r.frames.find((f) => f.type === 'message');
  const plugins = await t.app.inject({
    url: '/api/chat/openai-plugins/all',
    headers: { cookie: cookies.owner },
  });
  ids = {
    owner: owner.row.id,
    victim: 0,
    ownerName: owner.row.username,
    ownerPassword: owner.password,
    conv: first?.type === 'message' ? first.conversation_id : '',
    convNode: first?.type === 'message' ? (first.message?.id ?? '') : '',
    victimConv: '',
    plugin: plugins.json().result.items[0].id,
  };
});

const victimConversation = () => insertConversation(t.ctx, ids.owner, { title: 'victim' });
afterAll(() => t.close());

/** Records of the files routes, by placeholder: `{file}`, `{pendingFile}`, `{webFile}`, `{message}`. */
const fileIds: Record<string, string> = {};
const FILE_PARAMS: Record<string, string> = {
  file: ':id',
  pendingFile: ':id',
  webFile: ':file_id',
  task: ':name',
  share: ':share_id',
  shareToken: ':token',
  fileShareToken: ':token',
  invite: ':invite_id',
  inviteToken: ':token',
};

async function setUploadStrategy(strategy: 'server_upload_only' | 'browser_upload_only'): Promise<void> {
  const current = t.ctx.runtime.current();
  await t.ctx.runtime.save({
    ...current,
    openai_web: { ...current.openai_web, file_upload_strategy: strategy },
  });
}
const ownerRow = async () => (await userRepository(t.ctx.dbHandle.db).findById(ids.owner))!;
/** A file the owner stored on the server. */
async function ownerLocalFile(): Promise<string> {
  await setUploadStrategy('server_upload_only');
  const file = {
    stream: Readable.from([Buffer.from('matrix file')]),
    filename: 'm.txt',
    mimetype: 'text/plain',
  };
  return (await uploadLocalFile(t.ctx, { actor: await ownerRow(), file })).id;
}
/** A browser upload of the owner's whose bytes are at the blob, not yet completed. */
async function ownerPendingUpload(): Promise<string> {
  await setUploadStrategy('browser_upload_only');
  const request = { file_name: 'p.txt', file_size: 3, use_case: 'my_files' as const };
  const { file } = await startUpload(t.ctx, { actor: await ownerRow(), request });
  await fetch(file!.openai_web_upload_url!, {
    method: 'PUT',
    headers: { 'x-ms-blob-type': 'BlockBlob' },
    body: 'abc',
  });
  return file!.id;
}
/** An upstream file id the owner uploaded. */
async function ownerWebFile(): Promise<string> {
  const row = await relayToOpenaiWeb(t.ctx, await ownerRow(), await ownerLocalFile());
  return row.openai_web_file_id!;
}

/** A share link of the owner's conversation (each call a fresh one). */
async function ownerShare(): Promise<void> {
  const row = (await conversationRepository(t.ctx.dbHandle.db).findByUuid(await victimConversation()))!;
  const share = await createShare(t.ctx, await ownerRow(), row);
  fileIds.share = String(share.id);
  fileIds.shareToken = share.token;
}

/** A share link of an owner's web conversation whose question has `{webFile}` attached (made once). */
async function ownerSharedFile(): Promise<void> {
  if (fileIds.fileShareToken) return;
  const webFile = (fileIds.webFile ??= await ownerWebFile());
  const r = await ask(
    baseUrl,
    {
      source: 'openai_web',
      model: 'gpt_4',
      new_conversation: true,
      text_content: 'shared file',
      openai_web_attachments: [{ id: webFile, name: 'm.txt', size: 11 }],
    },
    { cookie: cookies.owner },
  );
  const conversationId = r.frames.flatMap((f) => (f.type === 'message' ? [f.conversation_id] : []))[0]!;
  const row = (await conversationRepository(t.ctx.dbHandle.db).findByUuid(conversationId))!;
  fileIds.fileShareToken = (await createShare(t.ctx, await ownerRow(), row)).token;
}

/** A fresh unlimited invite link (each call a new one). */
async function freshInvite(): Promise<void> {
  const invite = await createInvite(t.ctx, {
    invite: { expires_in_hours: 1, max_uses: null, group_id: null },
    actor: ADMIN_ACTOR,
  });
  fileIds.invite = String(invite.id);
  fileIds.inviteToken = invite.token;
}

/** Makes room under the owner's max_conv_count (the victims above count toward it). */
async function roomForImport(): Promise<void> {
  const repo = conversationRepository(t.ctx.dbHandle.db);
  for (const c of await repo.list({ userId: ids.owner, source: 'openai_api', validOnly: true }))
    await repo.update(c.conversation_id, { is_valid: 0 });
}

const importBody = () => ({
  _id: randomUUID(),
  source: 'openai_api',
  title: 'imported',
  create_time: null,
  update_time: null,
  mapping: {
    a: {
      id: 'a',
      source: 'openai_api',
      role: 'user',
      children: [],
      content: { content_type: 'text', text: 'hi' },
    },
  },
  current_node: 'a',
  current_model: 'gpt_3_5',
});

const cases = (): Case[] => [
  { method: 'GET', url: '/api/healthz', expect: { anonymous: 200, owner: 200, other: 200, superuser: 200 } },
  { method: 'GET', url: '/api/readyz', expect: { anonymous: 200, owner: 200, other: 200, superuser: 200 } },
  // Prometheus metrics: a superuser session (or the bearer token, in routes/metrics.routes.test.ts).
  { method: 'GET', url: '/metrics', expect: { ...DENY_ADMIN, superuser: 200 } },
  {
    method: 'GET',
    url: '/api/docs/json',
    expect: { anonymous: 200, owner: 200, other: 200, superuser: 200 },
  },
  {
    method: 'POST',
    url: '/api/auth/login',
    form: (i) => ({ username: i.ownerName, password: i.ownerPassword }),
    expect: { anonymous: 200, owner: 200, other: 200, superuser: 200 },
  },
  // sign-in for teams: single sign-on (off here: both ends send the browser back to the login page) and invites
  {
    method: 'GET',
    url: '/api/auth/options',
    expect: { anonymous: 200, owner: 200, other: 200, superuser: 200 },
  },
  {
    method: 'GET',
    url: '/api/auth/oidc/start',
    expect: { anonymous: 302, owner: 302, other: 302, superuser: 302 },
  },
  {
    method: 'GET',
    url: '/api/auth/oidc/callback',
    expect: { anonymous: 302, owner: 302, other: 302, superuser: 302 },
  },
  { method: 'GET', url: '/api/system/invites', expect: { ...DENY_ADMIN, superuser: 200 } },
  {
    method: 'POST',
    url: '/api/system/invites',
    payload: () => ({ expires_in_hours: 1, max_uses: 1 }),
    expect: { ...DENY_ADMIN, superuser: 201 },
  },
  {
    method: 'DELETE',
    url: '/api/system/invites/{invite}',
    before: freshInvite,
    expect: { ...DENY_ADMIN, superuser: 200 },
  },
  {
    method: 'GET',
    url: '/api/invite/{inviteToken}',
    before: freshInvite,
    expect: { anonymous: 200, owner: 200, other: 200, superuser: 200 },
  },
  {
    method: 'POST',
    url: '/api/invite/{inviteToken}',
    before: freshInvite,
    payload: () => ({ username: `inv${++seq}x`, password: 'invited-pass-1' }),
    expect: { anonymous: 201, owner: 201, other: 201, superuser: 201 },
  },
  {
    method: 'POST',
    url: '/api/auth/register',
    payload: () => ({
      username: `m${++seq}x`,
      nickname: 'M',
      email: 'm@example.com',
      password: 'matrix-pass-1',
    }),
    expect: { ...DENY_ADMIN, superuser: 201 },
  },
  {
    method: 'GET',
    url: '/api/user/me',
    expect: { anonymous: 10401, owner: 200, other: 200, superuser: 200 },
  },
  { method: 'GET', url: '/api/user/me/usage', expect: ANY_USER },
  {
    method: 'PATCH',
    url: '/api/user/me',
    payload: () => ({ nickname: 'Matrix' }),
    expect: { anonymous: 10401, owner: 200, other: 200, superuser: 200 },
  },
  { method: 'GET', url: '/api/user', expect: { ...DENY_ADMIN, superuser: 200 } },
  { method: 'GET', url: '/api/user/refs', expect: { ...DENY_ADMIN, superuser: 200 } },
  { method: 'GET', url: '/api/user/{owner}', expect: { ...DENY_ADMIN, superuser: 200 } },
  {
    method: 'PATCH',
    url: '/api/user/{owner}',
    payload: () => ({ remark: 'r' }),
    expect: { ...DENY_ADMIN, superuser: 200 },
  },
  {
    method: 'PATCH',
    url: '/api/user/{owner}/setting',
    payload: () => settingsBody(t),
    expect: { ...DENY_ADMIN, superuser: 200 },
  },
  { method: 'POST', url: '/api/user/{owner}/reset-chat-status', expect: { ...DENY_ADMIN, superuser: 200 } },
  { method: 'DELETE', url: '/api/user/{victim}', expect: { ...DENY_ADMIN, superuser: 200 } },
  { method: 'GET', url: '/api/conv', expect: { anonymous: 10401, owner: 200, other: 200, superuser: 200 } },
  { method: 'GET', url: '/api/conv?limit=10', expect: ANY_USER },
  { method: 'GET', url: '/api/conv/all', expect: { ...DENY_ADMIN, superuser: 200 } },
  // The owner's own list arrangement: not even a superuser pins for them.
  {
    method: 'PUT',
    url: '/api/conv/{conv}/pin',
    payload: () => ({ pinned: true }),
    expect: { anonymous: 10401, owner: 200, other: 10403, superuser: 10403 },
  },
  { method: 'GET', url: '/api/conv/{conv}', expect: OWNER_ONLY },
  { method: 'PATCH', url: '/api/conv/{conv}?title=Renamed', expect: OWNER_ONLY },
  { method: 'PATCH', url: '/api/conv/{conv}/gen_title?message_id=x', expect: OWNER_ONLY },
  {
    method: 'PUT',
    url: '/api/conv/{conv}/current-node',
    payload: (ids) => ({ current_node: ids.convNode }),
    expect: OWNER_ONLY,
  },
  { method: 'GET', url: '/api/conv/{conv}/interpreter', expect: OWNER_ONLY },
  { method: 'DELETE', url: '/api/conv/{victimConv}', expect: OWNER_ONLY },
  { method: 'DELETE', url: '/api/conv/{victimConv}/vanish', expect: { ...DENY_ADMIN, superuser: 200 } },
  {
    method: 'PATCH',
    url: '/api/conv/{victimConv}/assign/{ownerName}',
    expect: { ...DENY_ADMIN, superuser: 200 },
  },
  // share links, export and import
  { method: 'GET', url: '/api/conv/shares', expect: ANY_USER },
  { method: 'GET', url: '/api/conv/search?q=hello', expect: ANY_USER },
  {
    method: 'POST',
    url: '/api/conv/{victimConv}/shares',
    expect: { anonymous: 10401, owner: 201, other: 10403, superuser: 10403 },
  },
  { method: 'DELETE', url: '/api/conv/{victimConv}/shares', expect: OWNER_ONLY },
  { method: 'DELETE', url: '/api/conv/shares/{share}', before: ownerShare, expect: OWNER_ONLY },
  {
    method: 'GET',
    url: '/api/share/{shareToken}',
    before: ownerShare,
    expect: { anonymous: 200, owner: 200, other: 200, superuser: 200 },
  },
  {
    method: 'GET',
    url: '/api/share/{fileShareToken}/files/{webFile}',
    before: ownerSharedFile,
    expect: { anonymous: 200, owner: 200, other: 200, superuser: 200 },
  },
  { method: 'GET', url: '/api/conv/{conv}/export?format=md', expect: OWNER_ONLY },
  { method: 'GET', url: '/api/conv/export.zip', expect: ANY_USER },
  {
    method: 'POST',
    url: '/api/conv/import',
    before: roomForImport,
    payload: importBody,
    expect: { anonymous: 10401, owner: 201, other: 201, superuser: 201 },
  },
  { method: 'GET', url: '/api/chat/openai-plugins/all', expect: ANY_USER },
  { method: 'GET', url: '/api/chat/openai-plugins/installed', expect: ANY_USER },
  { method: 'GET', url: '/api/chat/openai-plugin/{plugin}', expect: ANY_USER },
  {
    method: 'PATCH',
    url: '/api/chat/openai-plugins/{plugin}/user-settings',
    payload: () => ({ is_installed: true }),
    expect: { ...DENY_ADMIN, superuser: 200 },
  },
  { method: 'GET', url: '/api/status/common', expect: ANY_USER },
  // files
  {
    method: 'POST',
    url: '/api/files/openai-web/upload-start',
    before: () => setUploadStrategy('browser_upload_only'),
    payload: () => ({ file_name: 'm.txt', file_size: 3, use_case: 'my_files' }),
    expect: ANY_USER,
  },
  {
    method: 'POST',
    url: '/api/files/local/upload',
    before: () => setUploadStrategy('server_upload_only'),
    multipart: () => multipartFile(Buffer.from('matrix'), { filename: 'm.txt' }),
    expect: { anonymous: 10401, owner: 201, other: 201, superuser: 201 },
  },
  {
    method: 'GET',
    url: '/api/files/local/download/{file}',
    before: async () => void (fileIds.file = await ownerLocalFile()),
    expect: OWNER_ONLY,
  },
  {
    method: 'POST',
    url: '/api/files/local/upload-to-openai-web/{file}',
    before: async () => void (fileIds.file = await ownerLocalFile()),
    expect: OWNER_ONLY,
  },
  {
    method: 'POST',
    url: '/api/files/openai-web/upload-complete/{pendingFile}',
    before: async () => void (fileIds.pendingFile = await ownerPendingUpload()),
    expect: OWNER_ONLY,
  },
  {
    method: 'GET',
    url: '/api/files/openai-web/{webFile}/download-url',
    before: async () => void (fileIds.webFile ??= await ownerWebFile()),
    expect: OWNER_ONLY,
  },
  {
    method: 'GET',
    url: '/api/files/openai-web/{webFile}/content',
    before: async () => void (fileIds.webFile ??= await ownerWebFile()),
    expect: OWNER_ONLY,
  },
  {
    method: 'GET',
    url: '/api/conv/{conv}/interpreter/download-url?message_id={message}&sandbox_path=%2Fmnt%2Fdata%2Fm.txt',
    before: async () =>
      void (fileIds.message = (await conversationRepository(t.ctx.dbHandle.db).findByUuid(
        ids.conv,
      ))!.current_node!),
    expect: OWNER_ONLY,
  },
  {
    method: 'GET',
    url: '/api/conv/{conv}/interpreter/download?message_id={message}&sandbox_path=%2Fmnt%2Fdata%2Fm.txt',
    before: async () =>
      void (fileIds.message = (await conversationRepository(t.ctx.dbHandle.db).findByUuid(
        ids.conv,
      ))!.current_node!),
    expect: OWNER_ONLY,
  },
  // servers
  { method: 'GET', url: '/api/system/getAllMachine', expect: { ...DENY_ADMIN, superuser: 200 } },
  { method: 'GET', url: '/api/system/queryMachine', expect: { ...DENY_ADMIN, superuser: 200 } },
  { method: 'GET', url: '/api/system/queryMachineInfo', expect: { ...DENY_ADMIN, superuser: 200 } },
  {
    method: 'POST',
    url: '/api/system/addMachine',
    payload: () => ({
      source: 'openai_api',
      hostname: 'm',
      ip_address: '127.0.0.1',
      port: 9,
      status: 'disabled',
    }),
    expect: { ...DENY_ADMIN, superuser: 201 },
  },
  {
    method: 'POST',
    url: '/api/system/updateMachine',
    payload: () => ({ id: 1, weight: 2 }),
    expect: { ...DENY_ADMIN, superuser: 200 },
  },
  { method: 'POST', url: '/api/system/checkMachines', expect: { ...DENY_ADMIN, superuser: 200 } },
  {
    method: 'DELETE',
    url: '/api/system/delMachine/{victimMachine}',
    expect: { ...DENY_ADMIN, superuser: 200 },
  },
  // user groups
  { method: 'GET', url: '/api/system/groups', expect: { ...DENY_ADMIN, superuser: 200 } },
  {
    method: 'POST',
    url: '/api/system/groups',
    payload: () => ({ name: `g${++seq}`, ...groupTemplate(t) }),
    expect: { ...DENY_ADMIN, superuser: 200 },
  },
  {
    method: 'PUT',
    url: '/api/system/groups/{victimGroup}',
    payload: () => ({ name: `g${++seq}`, ...groupTemplate(t) }),
    expect: { ...DENY_ADMIN, superuser: 200 },
  },
  { method: 'DELETE', url: '/api/system/groups/{victimGroup}', expect: { ...DENY_ADMIN, superuser: 200 } },
  // admin: system, statistics, tasks, logs, config, conversations in bulk
  { method: 'GET', url: '/api/system/info', expect: { ...DENY_ADMIN, superuser: 200 } },
  { method: 'GET', url: '/api/system/stats/request', expect: { ...DENY_ADMIN, superuser: 200 } },
  { method: 'GET', url: '/api/system/stats/ask?granularity=3600', expect: { ...DENY_ADMIN, superuser: 200 } },
  {
    method: 'POST',
    url: '/api/system/action/sync-openai-web-conv',
    expect: { ...DENY_ADMIN, superuser: 200 },
  },
  { method: 'GET', url: '/api/system/queryTask', expect: { ...DENY_ADMIN, superuser: 200 } },
  {
    method: 'POST',
    url: '/api/system/task/{task}/run',
    before: async () => void (fileIds.task = 'stats_retention'),
    expect: { ...DENY_ADMIN, superuser: 200 },
  },
  {
    method: 'GET',
    url: '/api/system/task/{task}/runs',
    before: async () => void (fileIds.task = 'stats_retention'),
    expect: { ...DENY_ADMIN, superuser: 200 },
  },
  {
    method: 'PATCH',
    url: '/api/system/task/{task}',
    before: async () => void (fileIds.task = 'stats_retention'),
    payload: () => ({ enabled: true }),
    expect: { ...DENY_ADMIN, superuser: 200 },
  },
  {
    method: 'POST',
    url: '/api/system/logs/server',
    payload: () => ({ max_lines: 10 }),
    expect: { ...DENY_ADMIN, superuser: 200 },
  },
  { method: 'GET', url: '/api/system/logs/completions', expect: { ...DENY_ADMIN, superuser: 200 } },
  { method: 'GET', url: '/api/system/config', expect: { ...DENY_ADMIN, superuser: 200 } },
  {
    method: 'PUT',
    url: '/api/system/config',
    payload: () => presentConfig(t.ctx),
    expect: { ...DENY_ADMIN, superuser: 200 },
  },
  { method: 'GET', url: '/api/system/config/schema', expect: { ...DENY_ADMIN, superuser: 200 } },
  { method: 'GET', url: '/api/system/credentials', expect: { ...DENY_ADMIN, superuser: 200 } },
  { method: 'GET', url: '/api/system/audit', expect: { ...DENY_ADMIN, superuser: 200 } },
  { method: 'GET', url: '/api/system/audit.csv', expect: { ...DENY_ADMIN, superuser: 200 } },
  { method: 'GET', url: '/api/system/usage', expect: { ...DENY_ADMIN, superuser: 200 } },
  { method: 'GET', url: '/api/system/usage.csv', expect: { ...DENY_ADMIN, superuser: 200 } },
  {
    method: 'PUT',
    url: '/api/system/credentials',
    payload: () => ({}),
    expect: { ...DENY_ADMIN, superuser: 200 },
  },
  {
    method: 'POST',
    url: '/api/conv/bulk',
    payload: (i) => ({ action: 'assign', conversation_ids: [i.conv], username: i.ownerName }),
    expect: { ...DENY_ADMIN, superuser: 200 },
  },
  // logout last: it ends the sessions used above
  {
    method: 'POST',
    url: '/api/auth/logout',
    expect: { anonymous: 10401, owner: 200, other: 200, superuser: 200 },
  },
];

describe('authorization matrix', () => {
  it('covers every registered route', () => {
    const covered = new Set(
      cases().map(
        (c) =>
          `${c.method} ${c.url
            .split('?')[0]!
            .replace(/\{(owner|victim)\}/, ':user_id')
            .replace(/\{(conv|victimConv)\}/, ':conversation_id')
            .replace('{ownerName}', ':username')
            .replace('{plugin}', ':plugin_id')
            .replace('{victimMachine}', ':id')
            .replace('{victimGroup}', ':group_id')
            .replace(/\{(\w+)\}/g, (m, k: string) => FILE_PARAMS[k] ?? m)}`,
      ),
    );
    const missing = t.app.registeredRoutes
      // The chat websocket has its own matrix in chat/socket.test.ts (anonymous, owner, other user, superuser).
      .filter(
        (r) =>
          r.url.startsWith('/api/') &&
          !r.url.startsWith('/api/docs') &&
          r.method !== 'HEAD' &&
          r.url !== '/api/chat',
      )
      .map((r) => `${r.method} ${r.url}`)
      .filter((r) => !covered.has(r));
    expect(missing).toEqual([]);
  });

  it.each(['anonymous', 'owner', 'other', 'superuser'] as const)('as %s', async (actor) => {
    for (const c of cases()) {
      await c.before?.();
      if (c.url.includes('{victim}')) ids.victim = (await t.createUser()).row.id;
      if (c.url.includes('{victimConv}')) ids.victimConv = await victimConversation();
      if (c.url.includes('{victimGroup}')) {
        const group = await createGroup(t.ctx, { name: `victim${++seq}`, ...groupTemplate(t) }, ADMIN_ACTOR);
        ids.victimGroup = group.row.id;
      }
      if (c.url.includes('{victimMachine}')) {
        ids.victimMachine = (
          await addServer(t.ctx, {
            source: 'openai_api',
            hostname: 'victim',
            ip_address: '127.0.0.1',
            port: 9,
            base_path: '/v1/',
            use_tls: false,
            status: 'disabled',
            weight: 1,
            max_concurrency: 1,
          })
        ).id;
      }
      const url = c.url
        .replace('{owner}', String(ids.owner))
        .replace('{victim}', String(ids.victim))
        .replace('{conv}', ids.conv)
        .replace('{victimConv}', ids.victimConv)
        .replace('{ownerName}', ids.ownerName)
        .replace('{plugin}', ids.plugin)
        .replace('{victimMachine}', String(ids.victimMachine))
        .replace('{victimGroup}', String(ids.victimGroup))
        .replace(/\{(\w+)\}/g, (m, k: string) => fileIds[k] ?? m);
      const headers: Record<string, string> = actor === 'anonymous' ? {} : { cookie: cookies[actor] };
      let payload: string | object | undefined;
      if (c.form) {
        payload = new URLSearchParams(c.form(ids)).toString();
        headers['content-type'] = 'application/x-www-form-urlencoded';
      } else if (c.multipart) {
        const m = c.multipart();
        payload = m.payload;
        Object.assign(headers, m.headers);
      } else if (c.payload) payload = c.payload(ids) as object;
      const res = await t.app.inject({ method: c.method, url, headers, payload });
      const body = res.headers['content-type']?.toString().includes('json')
        ? res.json()
        : { code: res.statusCode };
      expect(body.code ?? res.statusCode, `${actor} ${c.method} ${c.url}`).toBe(c.expect[actor]);
    }
  });
});
