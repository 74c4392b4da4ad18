import { randomUUID } from 'node:crypto';
import { unzipSync, strFromU8 } from 'fflate';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { IMPORT_MAX_BYTES, messageText } from '@cc/contracts';
import type { ChatMessage, ConversationHistory, UploadedFileInfo } from '@cc/contracts';
import { joinSettings } from '../presenters/user.presenter';
import { conversationRepository } from '../repositories/conversation.repository';
import { messageRepository } from '../repositories/message.repository';
import { createUser, updateUserSettings } from '../services/user.service';
import { ask } from '../test/chat-client';
import { ADMIN, createTestApp } from '../test/harness';
import type { TestApp } from '../test/harness';
import { multipartFile, pngBytes } from '../test/upload';

let t: TestApp;
let admin: string;
let owner: { id: number; email: string; username: string; cookie: string };
let other: { id: number; cookie: string };

beforeAll(async () => {
  t = await createTestApp();
  admin = await t.login(ADMIN.username, ADMIN.password);
  const o = await t.createUser({ email: 'owner-private@example.com' });
  const x = await t.createUser();
  owner = {
    id: o.row.id,
    email: o.row.email,
    username: o.row.username,
    cookie: await t.login(o.row.username, o.password),
  };
  other = { id: x.row.id, cookie: await t.login(x.row.username, x.password) };
});
afterAll(() => t.close());

interface Seeded {
  id: string;
  /** Message ids: system, first question (old version), its answer, edited question, its answer. */
  messages: string[];
}

/**
 * An API conversation with a system message and two versions of the question; the current path is the edited
 * one. Texts carry the title so a test can tell conversations apart.
 */
async function seedConversation(userId: number, title: string): Promise<Seeded> {
  const id = randomUUID();
  const db = t.ctx.dbHandle.db;
  const [sys, q1, a1, q2, a2] = [randomUUID(), randomUUID(), randomUUID(), randomUUID(), randomUUID()];
  const now = Date.now();
  const at = (i: number) => new Date(now + i * 1000).toISOString();
  await conversationRepository(db).insert({
    conversation_id: id,
    source: 'openai_api',
    title,
    user_id: userId,
    is_valid: 1,
    is_public: 0,
    current_model: 'gpt_3_5',
    current_node: a2,
    server_id: null,
    plugin_ids: null,
    create_time: at(0),
    update_time: at(0),
  });
  const row = (mid: string, role: string, parent: string | null, text: string, i: number) => ({
    id: mid,
    conversation_id: id,
    parent,
    role,
    author_name: null,
    model: role === 'assistant' ? 'gpt_3_5' : null,
    content: JSON.stringify({ content_type: 'text', text }),
    metadata: null,
    text,
    create_time: at(i),
    seq: i,
  });
  await messageRepository(db).upsert([
    row(sys, 'system', null, `secret instructions of ${title}`, 0),
    row(q1, 'user', sys, `old question of ${title}`, 1),
    row(a1, 'assistant', q1, `old answer of ${title}`, 2),
    row(q2, 'user', sys, `question of ${title}`, 3),
    row(a2, 'assistant', q2, `answer of ${title}\n\n\`\`\`ts\nconst x = 1;\n\`\`\``, 4),
  ]);
  return { id, messages: [sys, q1, a1, q2, a2] };
}

type Method = 'GET' | 'POST' | 'DELETE';
const as = (cookie: string | null, method: Method, url: string, payload?: unknown) =>
  t.app.inject({
    method,
    url,
    headers: cookie ? { cookie } : {},
    ...(payload === undefined
      ? {}
      : typeof payload === 'string'
        ? { payload, headers: { cookie: cookie ?? '', 'content-type': 'application/json' } }
        : { payload: payload as object }),
  });

async function share(conversationId: string): Promise<{ id: number; token: string }> {
  const res = await as(owner.cookie, 'POST', `/api/conv/${conversationId}/shares`);
  expect(res.statusCode, res.body).toBe(201);
  return res.json().result;
}

async function auditActions(target: string): Promise<string[]> {
  const res = await as(admin, 'GET', `/api/system/audit?target=${target}`);
  return (res.json().result.items as { action: string }[]).map((e) => e.action).reverse();
}

describe('share links', () => {
  it('shows a snapshot of the path shown to anyone with the link, until the owner revokes it', async () => {
    const conv = await seedConversation(owner.id, 'Shared one');
    await seedConversation(owner.id, 'Private other');
    const link = await share(conv.id);
    // 24 random bytes: 32 base64url characters (192 bits).
    expect(link.token).toMatch(/^[A-Za-z0-9_-]{32}$/);

    // Messages added later are not part of the snapshot.
    const later = randomUUID();
    await messageRepository(t.ctx.dbHandle.db).upsert([
      {
        id: later,
        conversation_id: conv.id,
        parent: conv.messages[4]!,
        role: 'user',
        author_name: null,
        model: null,
        content: JSON.stringify({ content_type: 'text', text: 'asked after sharing' }),
        metadata: null,
        text: 'asked after sharing',
        create_time: new Date(Date.now() + 60_000).toISOString(),
        seq: 9,
      },
    ]);

    const view = await as(null, 'GET', `/api/share/${link.token}`);
    expect(view.statusCode, view.body).toBe(200);
    expect(view.headers['cache-control']).toBe('private, no-store');
    const shared = view.json().result;
    expect(shared).toMatchObject({ title: 'Shared one', source: 'openai_api' });
    expect(shared.messages.map((m: { id: string }) => m.id)).toEqual([conv.messages[3], conv.messages[4]]);
    expect(shared.messages[0]).toMatchObject({ parent: null, children: [conv.messages[4]] });
    // Only the messages: no owner, no email, no other version, no instructions, no other conversation.
    for (const hidden of [
      owner.email,
      owner.username,
      conv.id,
      'old question',
      'secret instructions',
      'Private other',
      'asked after sharing',
    ]) {
      expect(view.body).not.toContain(hidden);
    }

    const own = await as(owner.cookie, 'GET', '/api/conv/shares');
    expect(own.json().result[0]).toMatchObject({ id: link.id, conversation_id: conv.id, revoked_at: null });
    expect(own.body).not.toContain(link.token);
    const listed = await as(admin, 'GET', '/api/conv/all');
    const publicOf = (body: { result: { conversation_id: string; is_public: boolean }[] }) =>
      body.result.find((c) => c.conversation_id === conv.id)?.is_public;
    expect(publicOf(listed.json())).toBe(true);

    const revoked = await as(owner.cookie, 'DELETE', `/api/conv/shares/${link.id}`);
    expect(revoked.statusCode, revoked.body).toBe(200);
    expect(revoked.json().result.revoked_at).not.toBeNull();
    const gone = await as(null, 'GET', `/api/share/${link.token}`);
    expect(gone.statusCode).toBe(404);
    expect(gone.json()).toMatchObject({ code: 404, message: 'errors.notFound' });
    expect(publicOf((await as(admin, 'GET', '/api/conv/all')).json())).toBe(false);
    expect(await auditActions(conv.id)).toEqual(['share.create', 'share.revoke']);
  });

  it('answers 404 for unknown and malformed tokens and for a deleted conversation', async () => {
    expect((await as(null, 'GET', `/api/share/${'A'.repeat(32)}`)).statusCode).toBe(404);
    expect((await as(null, 'GET', '/api/share/not%20a%20token')).statusCode).toBe(404);
    const conv = await seedConversation(owner.id, 'Deleted later');
    const link = await share(conv.id);
    expect((await as(null, 'GET', `/api/share/${link.token}`)).statusCode).toBe(200);
    expect((await as(owner.cookie, 'DELETE', `/api/conv/${conv.id}`)).statusCode).toBe(200);
    expect((await as(null, 'GET', `/api/share/${link.token}`)).statusCode).toBe(404);
    // Nor is it listed among the owner's links as if it still worked.
    const own = (await as(owner.cookie, 'GET', '/api/conv/shares')).json().result as { id: number }[];
    expect(own.map((s) => s.id)).not.toContain(link.id);
  });

  it('a deleted conversation revokes its links for good (they do not come back with it); a destroyed one removes them', async () => {
    const db = t.ctx.dbHandle.db;
    const deleted = await seedConversation(owner.id, 'Deleted, then back');
    const link = await share(deleted.id);
    expect((await as(owner.cookie, 'DELETE', `/api/conv/${deleted.id}`)).statusCode).toBe(200);
    const row = await db
      .selectFrom('conversations')
      .select('is_public')
      .where('conversation_id', '=', deleted.id)
      .executeTakeFirstOrThrow();
    expect(row.is_public).toBe(0);
    // A sync finds it on the upstream again: valid, but its old link stays revoked.
    await db
      .updateTable('conversations')
      .set({ is_valid: 1 })
      .where('conversation_id', '=', deleted.id)
      .execute();
    expect((await as(null, 'GET', `/api/share/${link.token}`)).statusCode).toBe(404);

    const destroyed = await seedConversation(owner.id, 'Destroyed');
    await share(destroyed.id);
    expect((await as(admin, 'DELETE', `/api/conv/${destroyed.id}/vanish`)).statusCode).toBe(200);
    const left = await db
      .selectFrom('shares')
      .select('id')
      .where('conversation_id', '=', destroyed.id)
      .execute();
    expect(left).toEqual([]);
  });

  it("stops serving a deactivated account's links, and serves them again once it is reactivated", async () => {
    const maker = await t.createUser();
    const cookie = await t.login(maker.row.username, maker.password);
    const conv = await seedConversation(maker.row.id, 'Made by someone who leaves');
    const made = await as(cookie, 'POST', `/api/conv/${conv.id}/shares`);
    expect(made.statusCode, made.body).toBe(201);
    const url = `/api/share/${made.json().result.token}`;
    const active = (is_active: boolean) =>
      t.app.inject({
        method: 'PATCH',
        url: `/api/user/${maker.row.id}`,
        headers: { cookie: admin },
        payload: { is_active },
      });
    expect((await as(null, 'GET', url)).statusCode).toBe(200);
    expect((await active(false)).statusCode).toBe(200);
    expect((await as(null, 'GET', url)).statusCode).toBe(404);
    expect((await active(true)).statusCode).toBe(200);
    expect((await as(null, 'GET', url)).statusCode).toBe(200);
  });

  it('lets only the owner share, and only the owner or a superuser revoke', async () => {
    const conv = await seedConversation(owner.id, 'Guarded');
    expect((await as(other.cookie, 'POST', `/api/conv/${conv.id}/shares`)).json().code).toBe(10403);
    expect((await as(admin, 'POST', `/api/conv/${conv.id}/shares`)).json().code).toBe(10403);
    const first = await share(conv.id);
    const second = await share(conv.id);
    expect(first.token).not.toBe(second.token);

    const denied = await as(other.cookie, 'DELETE', `/api/conv/shares/${first.id}`);
    expect(denied.json().code).toBe(10403);
    expect((await as(other.cookie, 'DELETE', `/api/conv/${conv.id}/shares`)).json().code).toBe(10403);
    expect((await as(null, 'GET', `/api/share/${first.token}`)).statusCode).toBe(200);

    const byAdmin = await as(admin, 'DELETE', `/api/conv/shares/${first.id}`);
    expect(byAdmin.statusCode, byAdmin.body).toBe(200);
    expect((await as(null, 'GET', `/api/share/${first.token}`)).statusCode).toBe(404);
    // The admin list's action revokes every remaining link of the conversation.
    const all = await as(admin, 'DELETE', `/api/conv/${conv.id}/shares`);
    expect(all.json().result).toBe(1);
    expect((await as(null, 'GET', `/api/share/${second.token}`)).statusCode).toBe(404);
    expect(await auditActions(conv.id)).toEqual([
      'share.create',
      'share.create',
      'share.revoke',
      'share.revoke',
    ]);
    expect((await as(owner.cookie, 'DELETE', '/api/conv/shares/999999')).statusCode).toBe(404);
  });
});

describe('files of a shared conversation', () => {
  let baseUrl: string;
  let sharer: { id: number; cookie: string };

  beforeAll(async () => {
    baseUrl = await t.app.listen({ host: '127.0.0.1', port: 0 });
    const current = t.ctx.runtime.current();
    await t.ctx.runtime.save({
      ...current,
      openai_web: { ...current.openai_web, file_upload_strategy: 'server_upload_only' },
    });
    sharer = await webUser();
  });

  /** A user who may ask the web source with files, without rate limits in the way. */
  async function webUser(): Promise<{ id: number; cookie: string }> {
    const u = await t.createUser();
    const settings = joinSettings(u.setting, u.counters);
    settings.openai_web.rate_limits = [];
    await updateUserSettings(t.ctx, u.row.id, settings);
    return { id: u.row.id, cookie: await t.login(u.row.username, u.password) };
  }

  /** Uploads bytes to the server and on to the upstream (the emulator's web backend); the upstream file id. */
  async function webFile(cookie: string, data: Buffer, filename: string, contentType: string) {
    const form = multipartFile(data, { filename, contentType });
    const stored = await t.app.inject({
      method: 'POST',
      url: '/api/files/local/upload',
      headers: { ...form.headers, cookie },
      payload: form.payload,
    });
    expect(stored.statusCode, stored.body).toBe(201);
    const id = (stored.json().result as UploadedFileInfo).id;
    const relayed = await as(cookie, 'POST', `/api/files/local/upload-to-openai-web/${id}`);
    expect(relayed.statusCode, relayed.body).toBe(200);
    return (relayed.json().result as UploadedFileInfo).openai_web_info!.file_id!;
  }

  const fileUrl = (token: string, fileId: string) => `/api/share/${token}/files/${fileId}`;

  it('serves the image and attachment the snapshot shows to anyone with the link, and nothing else', async () => {
    const png = pngBytes(37, 21);
    const notes = Buffer.from('meeting notes');
    const imageId = await webFile(sharer.cookie, png, 'cat.png', 'image/png');
    const docId = await webFile(sharer.cookie, notes, 'notes.txt', 'text/plain');
    // The sharer's own upload, never sent in this conversation.
    const unsharedId = await webFile(sharer.cookie, pngBytes(2, 2), 'private.png', 'image/png');
    const r = await ask(
      baseUrl,
      {
        source: 'openai_web',
        model: 'gpt_4',
        new_conversation: true,
        text_content: 'What do these show?',
        openai_web_attachments: [
          { id: docId, name: 'notes.txt', size: notes.length, mime_type: 'text/plain' },
          { id: imageId, name: 'cat.png', size: png.length, mime_type: 'image/png', width: 37, height: 21 },
        ],
        openai_web_multimodal_image_parts: [
          { asset_pointer: `file-service://${imageId}`, size_bytes: png.length, width: 37, height: 21 },
        ],
      },
      { cookie: sharer.cookie },
    );
    expect([r.code, r.reason]).toEqual([1000, 'tips.finished']);
    const conversationId = r.frames.flatMap((f) => (f.type === 'message' ? [f.conversation_id] : []))[0]!;
    const res = await as(sharer.cookie, 'POST', `/api/conv/${conversationId}/shares`);
    expect(res.statusCode, res.body).toBe(201);
    const link = res.json().result as { id: number; token: string };

    // The view names the attachments with the ids its page loads them by.
    const question = (
      (await as(null, 'GET', `/api/share/${link.token}`)).json().result.messages as ChatMessage[]
    ).find((m) => m.role === 'user')!;
    expect(question.metadata).toMatchObject({
      attachments: [
        { id: docId, name: 'notes.txt', size: notes.length },
        { id: imageId, name: 'cat.png', size: png.length },
      ],
    });

    const emulator = t.ctx.demo!.emulator;
    const before = emulator.requests.length;
    const image = await as(null, 'GET', fileUrl(link.token, imageId));
    expect(image.statusCode, image.body).toBe(200);
    expect(image.rawPayload.equals(png)).toBe(true);
    expect(image.headers['content-type']).toBe('image/png');
    expect(image.headers['content-disposition']).toMatch(/^inline; filename="cat\.png"/);
    expect(image.headers['x-content-type-options']).toBe('nosniff');
    expect(image.headers['cache-control']).toBe('private, max-age=300');
    // Fetched through the upstream's download protocol; the blob host gets no credentials.
    const sent = emulator.requests.slice(before);
    expect(sent.some((x) => x.method === 'GET' && x.path === `/backend-api/files/${imageId}/download`)).toBe(
      true,
    );
    expect(sent.find((x) => x.path === `/blob/${imageId}`)?.hadAuthorization).toBe(false);

    const doc = await as(null, 'GET', fileUrl(link.token, docId));
    expect(doc.statusCode, doc.body).toBe(200);
    expect(doc.body).toBe('meeting notes');
    expect(doc.headers['content-type']).toBe('application/octet-stream');
    expect(doc.headers['content-disposition']).toMatch(/^attachment; filename="notes\.txt"/);

    // Everything else is the same bare 404 as an unknown token: nobody learns whether a file exists.
    const unknownToken = await as(null, 'GET', fileUrl('C'.repeat(32), imageId));
    expect(unknownToken.statusCode).toBe(404);
    expect(unknownToken.json()).toEqual({ code: 404, message: 'errors.notFound', result: null });
    for (const fileId of [
      unsharedId,
      'file-doesnotexist',
      '..%2F..%2Fetc',
      'not-a-file-id',
      conversationId,
    ]) {
      const refused = await as(null, 'GET', fileUrl(link.token, fileId));
      expect([refused.statusCode, refused.json()], fileId).toEqual([404, unknownToken.json()]);
    }
    // Its owner's session changes nothing on the public route.
    const ownSession = await as(sharer.cookie, 'GET', fileUrl(link.token, unsharedId));
    expect([ownSession.statusCode, ownSession.json()]).toEqual([404, unknownToken.json()]);

    expect((await as(sharer.cookie, 'DELETE', `/api/conv/shares/${link.id}`)).statusCode).toBe(200);
    for (const fileId of [imageId, docId]) {
      const revoked = await as(null, 'GET', fileUrl(link.token, fileId));
      expect([revoked.statusCode, revoked.json()]).toEqual([404, unknownToken.json()]);
    }
  });

  it('serves no file its sharer may not open, even one the snapshot names', async () => {
    const stranger = await webUser();
    const foreignId = await webFile(stranger.cookie, pngBytes(4, 4), 'theirs.png', 'image/png');
    const ownId = await webFile(sharer.cookie, pngBytes(5, 5), 'mine.png', 'image/png');
    const conv = await seedConversation(sharer.id, 'Pointing elsewhere');
    const res = await as(sharer.cookie, 'POST', `/api/conv/${conv.id}/shares`);
    const link = res.json().result as { id: number; token: string };
    // A snapshot that names both files (as a tampered or stale record would).
    const message: ChatMessage = {
      id: 'm1',
      source: 'openai_web',
      role: 'user',
      parent: null,
      children: [],
      content: {
        content_type: 'multimodal_text',
        parts: [
          { asset_pointer: `file-service://${ownId}` },
          { asset_pointer: `file-service://${foreignId}` },
        ],
      },
    };
    await t.ctx.dbHandle.db
      .updateTable('shares')
      .set({
        snapshot: JSON.stringify({
          title: 'x',
          source: 'openai_web',
          current_model: null,
          messages: [message],
        }),
      })
      .where('id', '=', link.id)
      .execute();
    expect((await as(null, 'GET', fileUrl(link.token, ownId))).statusCode).toBe(200);
    const foreign = await as(null, 'GET', fileUrl(link.token, foreignId));
    expect([foreign.statusCode, foreign.json()]).toEqual([
      404,
      { code: 404, message: 'errors.notFound', result: null },
    ]);
  });
});

describe('share link guessing', () => {
  it('is rate-limited per address like other public routes', async () => {
    let status = 0;
    let tries = 0;
    while (status !== 429 && tries < 70) {
      tries += 1;
      status = (await as(null, 'GET', `/api/share/${'B'.repeat(32)}`)).statusCode;
    }
    expect(status).toBe(429);
    expect(tries).toBeLessThanOrEqual(61);
  });

  it('limits the files of shared conversations per address too', async () => {
    let status = 0;
    let tries = 0;
    while (status !== 429 && tries < 130) {
      tries += 1;
      status = (await as(null, 'GET', `/api/share/${'B'.repeat(32)}/files/file-x`)).statusCode;
    }
    expect(status).toBe(429);
    expect(tries).toBeLessThanOrEqual(121);
  });
});

describe('export and import', () => {
  it('exports JSON that imports back as a new API conversation with the same path', async () => {
    const conv = await seedConversation(owner.id, 'Round trip');
    const exported = await as(owner.cookie, 'GET', `/api/conv/${conv.id}/export?format=json`);
    expect(exported.statusCode).toBe(200);
    expect(exported.headers['content-disposition']).toContain('attachment; filename="Round trip.json"');
    const doc = JSON.parse(exported.body) as ConversationHistory;
    expect(doc._id).toBe(conv.id);
    expect(Object.keys(doc.mapping)).toHaveLength(5);

    const imported = await as(owner.cookie, 'POST', '/api/conv/import', exported.body);
    expect(imported.statusCode, imported.body).toBe(201);
    const created = imported.json().result;
    expect(created).toMatchObject({ source: 'openai_api', title: 'Round trip', user_id: owner.id });
    expect(created.conversation_id).not.toBe(conv.id);

    const history = (await as(owner.cookie, 'GET', `/api/conv/${created.conversation_id}`)).json()
      .result as ConversationHistory;
    expect(Object.keys(history.mapping)).toHaveLength(5);
    const path: string[] = [];
    for (let id = history.current_node; id; id = history.mapping[id]?.parent ?? null) {
      const m = history.mapping[id]!;
      path.unshift(messageText(m));
    }
    expect(path).toEqual([
      'secret instructions of Round trip',
      'question of Round trip',
      'answer of Round trip\n\n```ts\nconst x = 1;\n```',
    ]);
    // Importing the same file twice makes two conversations (fresh ids).
    expect((await as(owner.cookie, 'POST', '/api/conv/import', exported.body)).statusCode).toBe(201);
  });

  it('imports a web export as API messages: tool steps skipped, their children moved up', async () => {
    const msg = (id: string, role: string, parent: string | null, text: string, extra = {}) => ({
      id,
      source: 'openai_web',
      role,
      parent,
      children: [],
      content: { content_type: 'text', parts: [text] },
      ...extra,
    });
    const doc = {
      _id: randomUUID(),
      source: 'openai_web',
      title: 'From the web',
      create_time: 'not a time',
      update_time: null,
      current_node: 'a2',
      current_model: 'gpt_4_browsing',
      mapping: {
        root: {
          id: 'root',
          source: 'openai_web',
          role: 'system',
          parent: null,
          children: ['q'],
          content: null,
        },
        q: msg('q', 'user', 'root', 'look this up'),
        call: msg('call', 'assistant', 'q', '', { content: { content_type: 'code', text: 'search("x")' } }),
        tool: msg('tool', 'tool', 'call', '', { author_name: 'browser', content: null }),
        a2: msg('a2', 'assistant', 'tool', 'found it'),
      },
    };
    const res = await as(owner.cookie, 'POST', '/api/conv/import', doc);
    expect(res.statusCode, res.body).toBe(201);
    expect(res.json().result).toMatchObject({ source: 'openai_api', current_model: 'gpt_3_5' });
    const history = (await as(owner.cookie, 'GET', `/api/conv/${res.json().result.conversation_id}`)).json()
      .result as ConversationHistory;
    const messages = Object.values(history.mapping);
    // The code call is an assistant message with text (kept); the empty root and the tool step are not.
    expect(messages.map((m) => messageText(m)).sort()).toEqual(['found it', 'look this up', 'search("x")']);
    const byText = (text: string) => messages.find((m) => messageText(m) === text)!;
    expect(byText('found it').parent).toBe(byText('search("x")').id);
    expect(byText('look this up').parent).toBeNull();
    expect(history.current_node).toBe(byText('found it').id);
    expect(messages.every((m) => m.source === 'openai_api' && !['q', 'a2', 'call'].includes(m.id))).toBe(
      true,
    );
  });

  it('exports Markdown with roles as headings and code blocks kept', async () => {
    const conv = await seedConversation(owner.id, 'Markdown one');
    const res = await as(owner.cookie, 'GET', `/api/conv/${conv.id}/export?format=md`);
    expect(res.headers['content-type']).toContain('text/markdown');
    expect(res.headers['content-disposition']).toContain('filename="Markdown one.md"');
    expect(res.body).toBe(
      '# Markdown one\n\n## User\n\nquestion of Markdown one\n\n## Assistant (gpt_3_5)\n\n' +
        'answer of Markdown one\n\n```ts\nconst x = 1;\n```\n',
    );
    expect((await as(other.cookie, 'GET', `/api/conv/${conv.id}/export?format=md`)).json().code).toBe(10403);
  });

  it('exports every own conversation in one zip, as JSON and Markdown', async () => {
    const u = await t.createUser();
    const cookie = await t.login(u.row.username, u.password);
    await seedConversation(u.row.id, 'Zip A');
    await seedConversation(u.row.id, 'Zip B');
    await seedConversation(owner.id, 'Not theirs');
    const res = await as(cookie, 'GET', '/api/conv/export.zip');
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('application/zip');
    const files = unzipSync(res.rawPayload);
    expect(Object.keys(files).sort()).toEqual([
      '001 Zip B.json',
      '001 Zip B.md',
      '002 Zip A.json',
      '002 Zip A.md',
    ]);
    expect(JSON.parse(strFromU8(files['002 Zip A.json']!)).title).toBe('Zip A');
    expect(strFromU8(files['001 Zip B.md']!)).toContain('## User\n\nquestion of Zip B');
  });

  it('refuses malformed, empty and oversized files with a clear error and creates nothing', async () => {
    const count = () => conversationRepository(t.ctx.dbHandle.db).countValid(owner.id, 'openai_api');
    const before = await count();
    const bad = await as(owner.cookie, 'POST', '/api/conv/import', '{"title": "broken"');
    expect(bad.statusCode).toBe(400);
    expect(bad.json()).toMatchObject({ code: 400, result: 'errors.detail.invalidJson' });
    const wrong = await as(owner.cookie, 'POST', '/api/conv/import', { title: 'x', mapping: 'nope' });
    expect(wrong.statusCode).toBe(422);
    expect(wrong.json().code).toBe(422);
    const empty = {
      _id: randomUUID(),
      source: 'openai_api',
      title: 'Empty',
      create_time: null,
      update_time: null,
      mapping: {},
      current_node: null,
      current_model: null,
    };
    expect((await as(owner.cookie, 'POST', '/api/conv/import', empty)).statusCode).toBe(422);
    const big = JSON.stringify({ ...empty, title: 'x'.repeat(IMPORT_MAX_BYTES) });
    const tooBig = await as(owner.cookie, 'POST', '/api/conv/import', big);
    expect(tooBig.statusCode).toBe(413);
    expect(tooBig.json()).toMatchObject({ result: 'errors.detail.bodyTooLarge' });
    expect(await count()).toBe(before);
  });

  it('counts an import toward max_conv_count and refuses it over the cap', async () => {
    const defaults = t.ctx.runtime.current().user_defaults;
    const capped = await createUser(t.ctx, {
      user: {
        username: `capped_${randomUUID().slice(0, 6)}`,
        nickname: 'Capped',
        email: 'capped@example.com',
        password: 'user-pass-123',
        is_active: true,
        is_superuser: false,
        is_verified: false,
      },
      settings: { ...defaults, openai_api: { ...defaults.openai_api, max_conv_count: 1 } },
    });
    const cookie = await t.login(capped.row.username, 'user-pass-123');
    const conv = await seedConversation(owner.id, 'To import');
    const file = (await as(owner.cookie, 'GET', `/api/conv/${conv.id}/export`)).body;
    expect((await as(cookie, 'POST', '/api/conv/import', file)).statusCode).toBe(201);
    const refused = await as(cookie, 'POST', '/api/conv/import', file);
    expect(refused.json()).toMatchObject({ code: 10403, message: 'errors.maxConversationCountReached' });
    expect(await conversationRepository(t.ctx.dbHandle.db).countValid(capped.row.id, 'openai_api')).toBe(1);
  });

  it("follows the user's source and models, and keeps no invisible-only text nor a model name that is not one", async () => {
    const defaults = t.ctx.runtime.current().user_defaults;
    const make = async (openai_api: Partial<typeof defaults.openai_api>) => {
      const made = await createUser(t.ctx, {
        user: {
          username: `importer_${randomUUID().slice(0, 6)}`,
          nickname: 'Importer',
          email: 'importer@example.com',
          password: 'user-pass-123',
          is_active: true,
          is_superuser: false,
          is_verified: false,
        },
        settings: { ...defaults, openai_api: { ...defaults.openai_api, ...openai_api } },
      });
      return t.login(made.row.username, 'user-pass-123');
    };
    const message = (id: string, role: string, parent: string | null, text: string, model?: string) => ({
      id,
      source: 'openai_api',
      role,
      parent,
      children: [],
      ...(model === undefined ? {} : { model }),
      content: { content_type: 'text', text },
    });
    const doc = {
      _id: randomUUID(),
      source: 'openai_api',
      title: 'Imported',
      create_time: null,
      update_time: null,
      mapping: {
        q: message('q', 'user', null, 'question'),
        blank: message('blank', 'user', 'q', '\u200B\u200B'),
        a: message('a', 'assistant', 'blank', 'answer', 'm\n## Injected\n'.repeat(1000)),
      },
      current_node: 'a',
      current_model: 'gpt_4',
    };

    const barred = await make({ allow_to_use: false });
    const refused = await as(barred, 'POST', '/api/conv/import', doc);
    expect(refused.json()).toMatchObject({ code: 10403, message: 'errors.userNotAllowToUseChatType' });

    const limited = await make({ available_models: ['gpt_3_5'] });
    const imported = await as(limited, 'POST', '/api/conv/import', doc);
    expect(imported.statusCode, imported.body).toBe(201);
    const id = imported.json().result.conversation_id as string;
    const history = (await as(limited, 'GET', `/api/conv/${id}`)).json().result as ConversationHistory;
    expect(history.current_model).toBe('gpt_3_5');
    const kept = Object.values(history.mapping);
    expect(kept.map((m) => messageText(m))).toEqual(['question', 'answer']);
    const model = kept.find((m) => m.role === 'assistant')!.model!;
    expect(model).not.toContain('\n');
    expect(model.length).toBeLessThanOrEqual(64);
  });
});
