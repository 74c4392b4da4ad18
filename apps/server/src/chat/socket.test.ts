import type { Socket } from 'node:net';
import { Duplex, Writable } from 'node:stream';
import type { Emulator } from '@cc/upstream-emulator';
import type { WebSocket } from 'ws';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { messageText } from '@cc/contracts';
import type { AskRequestInput, AskResponse, ChatMessage, ConversationHistory } from '@cc/contracts';
import { apiAsk, apiFollowUp, ask, openAsk, until } from '../test/chat-client';
import { apiAsksLeft, chatUser } from '../test/chat-users';
import type { ChatUserOptions } from '../test/chat-users';
import { ADMIN, createTestApp } from '../test/harness';
import { appendMessage } from './socket';
import type { TestApp } from '../test/harness';

let t: TestApp;
let url: string;
let admin: string;
let emulator: Emulator;

beforeAll(async () => {
  t = await createTestApp({
    openai_api: { read_timeout: 2 },
    openai_web: { ask_timeout: 2, queue_timeout: 5 },
  });
  url = await t.app.listen({ host: '127.0.0.1', port: 0 });
  admin = await t.login(ADMIN.username, ADMIN.password);
  emulator = t.ctx.demo!.emulator;
});
afterEach(() => {
  emulator.setFault(null);
  emulator.setKnobs({ firstTokenLatencyMs: 0, tokensPerSecond: 0, chunkSize: 8 });
});
afterAll(() => t.close());

const messages = (frames: AskResponse[]) =>
  frames.filter((f): f is Extract<AskResponse, { type: 'message' }> => f.type === 'message');
const lastText = (frames: AskResponse[]) => {
  const full = messages(frames)
    .filter((f) => f.message?.role === 'assistant')
    .pop()?.message;
  return full ? messageText(full) : '';
};

/**
 * Every message as a delta-mode client builds it from the frames (whole messages, appended text, changed fields),
 * and how many whole messages came.
 */
function rebuild(frames: AskResponse[]): { messages: Map<string, Record<string, unknown>>; whole: number } {
  const rebuilt = new Map<string, Record<string, unknown>>();
  let named: string | null = null;
  let whole = 0;
  const grow = (id: string, text: string) => {
    const content = rebuilt.get(id)!.content as { text?: string; parts?: string[] };
    if (content.parts) content.parts[content.parts.length - 1] += text;
    else content.text += text;
  };
  for (const f of frames) {
    if (f.type === 'append') grow(named!, f.text);
    if (f.type !== 'message') continue;
    if (f.message) {
      whole++;
      rebuilt.set(f.message.id, structuredClone(f.message));
      named = f.message.id;
    }
    if (f.delta) {
      grow(f.delta.message_id, f.delta.append);
      Object.assign(rebuilt.get(f.delta.message_id)!, f.delta.set);
      named = f.delta.message_id;
    }
  }
  return { messages: rebuilt, whole };
}

async function history(cookie: string, id: string): Promise<ConversationHistory> {
  const res = await t.app.inject({ url: `/api/conv/${id}`, headers: { cookie } });
  expect(res.statusCode, res.body).toBe(200);
  return res.json().result;
}

/** The users here keep the asks every new user gets, and have no rate limit on either source. */
const noRateLimits: ChatUserOptions = { asks: null, webUnlimited: true };

describe('/api/chat on openai_api', () => {
  it('streams an answer, stores the tree, titles the conversation and charges once', async () => {
    const u = await chatUser(t, noRateLimits);
    const before = await apiAsksLeft(t, u.id);
    const r = await ask(url, apiAsk('hello there'), { cookie: u.cookie });
    expect(r.code).toBe(1000);
    expect(r.reason).toBe('tips.finished');
    expect(r.frames[0]).toMatchObject({ type: 'waiting', tip: 'tips.waiting' });
    const conversationId = messages(r.frames)[0]!.conversation_id;
    const title = messages(r.frames).find((f) => f.title)?.title;
    expect(title).toBeTruthy();
    expect(lastText(r.frames)).toContain('hello there');
    const final = messages(r.frames)
      .filter((f) => f.message?.role === 'assistant')
      .pop()!.message!;
    expect(final.metadata).toMatchObject({
      finish_reason: 'stop',
      usage: { prompt_tokens: expect.any(Number) },
    });

    const list = (await t.app.inject({ url: '/api/conv', headers: { cookie: u.cookie } })).json().result;
    expect(list).toEqual([
      expect.objectContaining({
        conversation_id: conversationId,
        title,
        source: 'openai_api',
        current_model: 'gpt_3_5',
      }),
    ]);
    const h = await history(u.cookie, conversationId);
    const user = Object.values(h.mapping).find((m) => m.role === 'user')!;
    const reply = h.mapping[h.current_node!]!;
    expect(reply.parent).toBe(user.id);
    expect(user.children).toEqual([reply.id]);
    expect(h.current_model).toBe('gpt_3_5');

    expect(await apiAsksLeft(t, u.id)).toBe(before - 1);
    const log = await t.ctx.dbHandle.db
      .selectFrom('ask_logs')
      .selectAll()
      .where('user_id', '=', u.id)
      .execute();
    expect(log).toEqual([
      expect.objectContaining({
        source: 'openai_api',
        model: 'gpt_3_5',
        outcome: 'success',
        charged: 1,
        conversation_id: conversationId,
      }),
    ]);
  });

  it('branches from an older parent and sends only the requested context', async () => {
    const u = await chatUser(t, noRateLimits);
    const first = await ask(url, apiAsk('one'), { cookie: u.cookie });
    const conv = messages(first.frames)[0]!.conversation_id;
    const reply1 = (await history(u.cookie, conv)).current_node!;
    await ask(url, apiFollowUp(conv, reply1, 'two'), { cookie: u.cookie });
    const h2 = await history(u.cookie, conv);
    const reply2 = h2.current_node!;
    expect(Object.keys(h2.mapping)).toHaveLength(4);

    // Branch: ask again from reply1 (not the latest), with only the last message as context.
    await ask(url, apiFollowUp(conv, reply1, 'three', { api_context_message_count: 1 }), {
      cookie: u.cookie,
    });
    const sent = emulator.requests
      .filter((r) => r.path === '/v1/chat/completions' && (r.body as { stream?: boolean }).stream)
      .pop()!;
    expect((sent.body as { messages: { role: string; content: string }[] }).messages).toEqual([
      { role: 'assistant', content: expect.stringContaining('one') },
      { role: 'user', content: 'three' },
    ]);
    const h3 = await history(u.cookie, conv);
    expect(Object.keys(h3.mapping)).toHaveLength(6);
    expect(h3.mapping[reply1]!.children).toHaveLength(2);
    expect(h3.mapping[h3.current_node!]!.parent).not.toBe(reply2);
    // Whole path (-1): user one, assistant one, user three.
    await ask(url, apiFollowUp(conv, h3.current_node, 'four'), { cookie: u.cookie });
    const whole = emulator.requests
      .filter((r) => r.path === '/v1/chat/completions' && (r.body as { stream?: boolean }).stream)
      .pop()!;
    expect((whole.body as { messages: unknown[] }).messages).toHaveLength(5);
  });

  it('does not cut an answer that contains the text [DONE]', async () => {
    const u = await chatUser(t, noRateLimits);
    const r = await ask(url, apiAsk('#done'), { cookie: u.cookie });
    expect(r.code).toBe(1000);
    const text = lastText(r.frames);
    expect(text).toContain('[DONE]');
    expect(text.indexOf('[DONE]')).toBeLessThan(text.length - 10);
  });

  it('delta mode sends the message whole once, then appended text and changed fields only', async () => {
    const u = await chatUser(t, noRateLimits);
    // ~175 chunks, 2 ms apart: several append frames (one a gap), then the end.
    emulator.setKnobs({ tokensPerSecond: 1000, chunkSize: 8 });
    const r = await ask(url, apiAsk('#long 200', { stream_mode: 'delta' }), { cookie: u.cookie });
    // After the first whole message: appended text, each the text alone in a binary message, and at the end the
    // fields that changed (the finish reason, the usage) — the text is never sent twice.
    const appends = r.frames.filter((f) => f.type === 'append');
    expect(appends.length).toBeGreaterThan(0);
    expect(r.binary).toBe(appends.length);
    const { messages: rebuilt, whole } = rebuild(r.frames);
    expect(whole).toBe(2); // the user's message and the answer, once each
    const answer = [...rebuilt.values()].find((m) => m.role === 'assistant') as unknown as ChatMessage;
    const stored = (await history(u.cookie, messages(r.frames)[0]!.conversation_id)).mapping[answer.id]!;
    expect(answer).toEqual(stored);
    expect(answer.metadata).toMatchObject({
      finish_reason: 'stop',
      usage: { completion_tokens: expect.any(Number) },
    });
    expect(messageText(answer).split(/\s+/).length).toBeGreaterThanOrEqual(200);
  });

  it('appended text goes as binary UTF-8, or as an append frame when it holds half a surrogate pair', () => {
    expect(appendMessage('héllo 😀')).toEqual(Buffer.from('héllo 😀'));
    const half = '😀'.slice(0, 1);
    const split = appendMessage(`ab${half}`);
    expect(typeof split).toBe('string');
    expect(JSON.parse(split as string)).toEqual({ type: 'append', text: `ab${half}` });
  });

  it('maps an upstream 429 to its error key, refunds, and leaves the user idle', async () => {
    const u = await chatUser(t, noRateLimits);
    const before = await apiAsksLeft(t, u.id);
    emulator.setFault({ status: 429, once: true });
    const r = await ask(url, apiAsk('hi'), { cookie: u.cookie });
    expect(r.frames.pop()).toMatchObject({ type: 'error', tip: 'errors.openai.429' });
    expect(r.code).toBe(1001);
    expect(await apiAsksLeft(t, u.id)).toBe(before);
    expect((await t.app.inject({ url: '/api/conv', headers: { cookie: u.cookie } })).json().result).toEqual(
      [],
    );
    const again = await ask(url, apiAsk('hi'), { cookie: u.cookie });
    expect(again.code).toBe(1000);
  });

  it('stop: the upstream request is aborted promptly and the partial answer is kept and charged', async () => {
    const u = await chatUser(t, noRateLimits);
    emulator.setKnobs({ tokensPerSecond: 200, chunkSize: 4 });
    const before = await apiAsksLeft(t, u.id);
    let seen = 0;
    const r = await ask(url, apiAsk('#long 2000'), {
      cookie: u.cookie,
      onFrame: (f) => f.type === 'message' && f.message?.role === 'assistant' && ++seen >= 5,
    });
    const stoppedAt = Date.now();
    expect(r.code).toBe(1000);
    const req = await emulator.waitForRequest(
      (x) => x.path === '/v1/chat/completions' && x.aborted === true,
      3000,
    );
    expect(req.abortedAt! - stoppedAt).toBeLessThan(1000);
    const conv = messages(r.frames)[0]!.conversation_id;
    await until(async () => (await t.ctx.coordination.chatStatus.get(u.id)) === null);
    const h = await history(u.cookie, conv);
    const reply = Object.values(h.mapping).find((m) => m.role === 'assistant')!;
    expect(messageText(reply).length).toBeGreaterThan(0);
    expect(await apiAsksLeft(t, u.id)).toBe(before - 1);
    const log = await t.ctx.dbHandle.db
      .selectFrom('ask_logs')
      .selectAll()
      .where('user_id', '=', u.id)
      .executeTakeFirstOrThrow();
    expect(log.outcome).toBe('canceled');
  });

  it('an upstream stall hits the read timeout; a mid-stream disconnect keeps the partial answer', async () => {
    const u = await chatUser(t, noRateLimits);
    emulator.setFault({ stallAfterChunks: 0, once: true });
    const stalled = await ask(url, apiAsk('stall'), { cookie: u.cookie });
    expect(stalled.frames.pop()).toMatchObject({ type: 'error', tip: 'errors.timeout' });
    expect(await t.ctx.coordination.chatStatus.get(u.id)).toBeNull();

    emulator.setFault({ disconnectAfterChunks: 4, once: true });
    const cut = await ask(url, apiAsk('#long 300'), { cookie: u.cookie });
    expect(cut.frames.pop()).toMatchObject({ type: 'error', tip: 'errors.httpError' });
    expect(cut.code).toBe(1014);
    const conv = messages(cut.frames)[0]!.conversation_id;
    const h = await history(u.cookie, conv);
    expect(Object.values(h.mapping).some((m) => m.role === 'assistant')).toBe(true);

    emulator.setFault({ malformedLineAfterChunks: 2, once: true });
    const malformed = await ask(url, apiAsk('still fine'), { cookie: u.cookie });
    expect(malformed.code).toBe(1000);
  });
});

describe('/api/chat on openai_web', () => {
  it('streams tool messages, takes the upstream title and reads history from the upstream', async () => {
    const u = await chatUser(t, noRateLimits);
    const r = await ask(
      url,
      {
        source: 'openai_web',
        model: 'gpt_4_code_interpreter',
        new_conversation: true,
        text_content: '#code plot it',
      },
      { cookie: u.cookie },
    );
    expect(r.code).toBe(1000);
    const conv = messages(r.frames)[0]!.conversation_id;
    const title = messages(r.frames).find((f) => f.title)?.title;
    expect(title).toBeTruthy();
    const roles = new Set(messages(r.frames).map((f) => f.message?.content?.content_type));
    expect(roles).toEqual(new Set([undefined, 'text', 'code', 'execution_output']));
    const h = await history(u.cookie, conv);
    expect(h.from_cache).toBeUndefined();
    expect(h.title).toBe(title);
    const current = h.mapping[h.current_node!]!;
    expect(current.role).toBe('assistant');
    // Follow the path to the user message.
    const path: string[] = [];
    for (let m = current; m; m = h.mapping[m.parent ?? '']!) path.push(m.role);
    expect(path.filter((role) => role !== 'system')).toEqual(['assistant', 'tool', 'assistant', 'user']);
  });

  it('delta mode: every message rebuilt from its frames is the message stored, with no whole message repeated', async () => {
    const u = await chatUser(t, noRateLimits);
    emulator.setKnobs({ tokensPerSecond: 1000, chunkSize: 8 });
    const r = await ask(
      url,
      {
        source: 'openai_web',
        model: 'gpt_4_code_interpreter',
        new_conversation: true,
        text_content: '#code plot it',
        stream_mode: 'delta',
      },
      { cookie: u.cookie },
    );
    expect(r.code).toBe(1000);
    const { messages: rebuilt, whole } = rebuild(r.frames);
    expect(whole).toBe(rebuilt.size);
    const h = await history(u.cookie, messages(r.frames)[0]!.conversation_id);
    // (The user's message is stored as the upstream placed it in its tree: compared are the answer's messages.)
    const answers = [...rebuilt].filter(([, m]) => m.role !== 'user');
    expect(answers.length).toBe(3);
    for (const [id, m] of answers) {
      const { children: _streamed, ...fields } = m;
      const { children: _stored, ...stored } = h.mapping[id] as Record<string, unknown>;
      expect(fields, id).toEqual(stored);
    }
  });

  it('falls back to the local copy when the upstream is down', async () => {
    const u = await chatUser(t, noRateLimits);
    const r = await ask(
      url,
      {
        source: 'openai_web',
        model: 'gpt_4',
        new_conversation: true,
        text_content: 'keep me',
        new_title: 'Mine',
      },
      { cookie: u.cookie },
    );
    const conv = messages(r.frames)[0]!.conversation_id;
    const row = await t.ctx.dbHandle.db
      .selectFrom('conversations')
      .selectAll()
      .where('conversation_id', '=', conv)
      .executeTakeFirstOrThrow();
    expect(row.title).toBe('Mine');
    emulator.setFault({ status: 500 });
    const original = t.ctx.upstream.webTarget.bind(t.ctx.upstream);
    t.ctx.upstream.webTarget = () => ({
      ...original(),
      baseUrl: 'http://127.0.0.1:1/backend-api/',
      connectTimeoutMs: 500,
    });
    try {
      const h = await history(u.cookie, conv);
      expect(h.from_cache).toBe(true);
      expect(
        Object.values(h.mapping)
          .map((m) => m.role)
          .sort(),
      ).toEqual(['assistant', 'user']);
    } finally {
      t.ctx.upstream.webTarget = original;
    }
  });

  it('continues a cut answer in place', async () => {
    const u = await chatUser(t, noRateLimits);
    const r = await ask(
      url,
      { source: 'openai_web', model: 'gpt_4', new_conversation: true, text_content: '#length' },
      { cookie: u.cookie },
    );
    const conv = messages(r.frames)[0]!.conversation_id;
    const h = await history(u.cookie, conv);
    const cutId = h.current_node!;
    expect(h.mapping[cutId]!.metadata).toMatchObject({ finish_details: { type: 'max_tokens' } });
    const c = await ask(
      url,
      {
        source: 'openai_web',
        model: 'gpt_4',
        new_conversation: false,
        conversation_id: conv,
        parent: cutId,
        text_content: ':continue',
      },
      { cookie: u.cookie },
    );
    expect(c.code).toBe(1000);
    const after = await history(u.cookie, conv);
    expect(after.current_node).toBe(cutId);
    expect(Object.keys(after.mapping)).toHaveLength(Object.keys(h.mapping).length);
  });
});

describe('refusals and the queue', () => {
  it('closes 1008 without a session and for a foreign Origin; 1007 for an invalid request', async () => {
    const anon = await ask(url, apiAsk('x'));
    expect([anon.code, anon.reason]).toEqual([1008, 'errors.unauthorized']);
    const foreign = await ask(url, apiAsk('x'), { cookie: admin, origin: 'https://evil.example' });
    expect([foreign.code, foreign.reason]).toEqual([1008, 'errors.originNotAllowed']);
    const invalid = await ask(url, null, {
      cookie: admin,
      raw: JSON.stringify({ source: 'openai_api', new_conversation: false, text_content: 'x' }),
    });
    expect(invalid.code).toBe(1007);
    expect(invalid.frames[0]).toMatchObject({ type: 'error', tip: 'errors.invalidAskRequest' });
    const notJson = await ask(url, null, { cookie: admin, raw: '{nope' });
    expect(notJson.code).toBe(1007);
    expect(notJson.frames[0]).toMatchObject({ error_detail: 'errors.detail.invalidJson' });
  });

  it('refuses what the user can put right with its own message, not as an invalid request', async () => {
    const base = {
      source: 'openai_web' as const,
      model: 'gpt_4_plugins',
      new_conversation: true,
      text_content: 'x',
    };
    const cases: [object, object][] = [
      [
        { ...base, openai_web_plugin_ids: ['a', 'b', 'c', 'd'] },
        { tip: 'errors.tooManyPlugins', error_detail: 'validation.pluginCountExceeded', params: { max: 3 } },
      ],
      [
        { ...base, text_content: '' },
        { tip: 'errors.missingMessageContent', error_detail: null },
      ],
      // Text of nothing but zero-width spaces is no text.
      [
        { ...base, text_content: ' \u200B\u200B ' },
        { tip: 'errors.missingMessageContent', error_detail: null },
      ],
      [
        { ...base, new_conversation: false, parent: null },
        { tip: 'errors.missingConversationId', error_detail: null },
      ],
    ];
    for (const [request, refusal] of cases) {
      const r = await ask(url, request as AskRequestInput, { cookie: admin });
      expect(r.frames, JSON.stringify(request)).toEqual([{ type: 'error', ...refusal }]);
      expect(r.code).toBe(1008);
    }
  });

  it('refuses a question longer than the limit as too long, with the limit (not as an invalid request)', async () => {
    const base = { source: 'openai_api' as const, model: 'gpt_3_5', new_conversation: true };
    const long = await ask(url, { ...base, text_content: 'x'.repeat(100_001) }, { cookie: admin });
    expect(long.frames).toEqual([
      {
        type: 'error',
        tip: 'errors.messageTooLong',
        error_detail: 'validation.messageTooLong',
        params: { max: 100_000 },
      },
    ]);
    expect([long.code, long.reason]).toEqual([1008, 'errors.messageTooLong']);
    // At the limit it is a question like any other.
    const atLimit = await ask(url, { ...base, text_content: 'x'.repeat(100_000) }, { cookie: admin });
    expect(atLimit.code).toBe(1000);
  });

  /** Calls `seen` with the buffers of every write to the server's side of the next chat socket's connection. */
  function onWrites(seen: (buffers: Buffer[]) => void) {
    t.app.websocketServer.once('connection', (socket: WebSocket) => {
      type Chunk = { chunk: Buffer | string };
      const raw = (socket as unknown as { _socket: Socket })._socket as Socket & {
        _write(chunk: Buffer, encoding: BufferEncoding, cb: (err?: Error | null) => void): void;
        _writev(chunks: Chunk[], cb: (err?: Error | null) => void): void;
      };
      const write = raw._write.bind(raw);
      const writev = raw._writev.bind(raw);
      raw._write = (chunk, encoding, cb) => {
        seen([Buffer.from(chunk)]);
        write(chunk, encoding, cb);
      };
      raw._writev = (chunks, cb) => {
        seen(chunks.map((c) => Buffer.from(c.chunk)));
        writev(chunks, cb);
      };
    });
  }

  it("frames of one turn go out in one write: a refusal's error frame and its close frame share one", async () => {
    // Every write of the server's side of the socket, as the frames it holds (opcode of each: 1 text, 8 close).
    const writes: number[][] = [];
    const opcodes = (data: Buffer): number[] => {
      const found: number[] = [];
      for (let at = 0; at + 2 <= data.length;) {
        const length = data[at + 1]! & 0x7f;
        const header = length === 126 ? 4 : length === 127 ? 10 : 2;
        const payload =
          length === 126
            ? data.readUInt16BE(at + 2)
            : length === 127
              ? Number(data.readBigUInt64BE(at + 2))
              : length;
        found.push(data[at]! & 0x0f);
        at += header + payload;
      }
      return found;
    };
    onWrites((buffers) => writes.push(opcodes(Buffer.concat(buffers))));
    const invalid = await ask(url, null, {
      cookie: admin,
      raw: JSON.stringify({ source: 'openai_api', new_conversation: false, text_content: 'x' }),
    });
    expect(invalid.code).toBe(1007);
    expect(invalid.frames).toHaveLength(1);
    // The error frame and the close frame, sent one after the other: one write (before: one each).
    expect(writes).toEqual([[1, 8]]);
  });

  it('each frame of an answer goes to the connection in one piece, its header and payload together', async () => {
    /** Per write to the server's side of the connection: how many buffers it was given. */
    const pieces: number[] = [];
    onWrites((buffers) => pieces.push(buffers.length));
    const r = await ask(url, apiAsk('#long 40'), { cookie: admin });
    expect(r.code).toBe(1000);
    // Frames sent in one turn share a write; each is one buffer (before: a header and a payload, two each).
    expect(pieces.length).toBeGreaterThan(3);
    expect(pieces.reduce((a, b) => a + b, 0)).toBeLessThanOrEqual(r.frames.length + 1);
  });

  it('a closing socket ends its frame reader and its connection once each (no end() on an ended stream)', async () => {
    // Every end() that reaches the streams of the server's side of the socket, and whether the stream had ended.
    const ends: { stream: string; ended: boolean }[] = [];
    let reader: Writable | undefined;
    let connection: Duplex | undefined;
    const closed = new Promise<void>((resolve) => {
      t.app.websocketServer.once('connection', (socket: WebSocket) => {
        reader = (socket as unknown as { _receiver: Writable })._receiver;
        connection = (socket as unknown as { _socket: Duplex })._socket;
        socket.once('close', () => resolve());
      });
    });
    const spy = (proto: Writable) => {
      const end = Reflect.get(proto, 'end') as (...a: unknown[]) => Writable;
      return vi.spyOn(proto, 'end').mockImplementation(function (this: Writable, ...args: unknown[]) {
        if (this === reader || this === connection)
          ends.push({ stream: this === reader ? 'reader' : 'connection', ended: this.writableEnded });
        return end.apply(this, args);
      });
    };
    // The reader is a Writable; a net.Socket's end() calls the Duplex one.
    const spies = [spy(Writable.prototype), spy(Duplex.prototype)];
    try {
      const r = await ask(url, apiAsk('hello'), { cookie: admin });
      expect(r.code).toBe(1000);
      await closed;
    } finally {
      for (const s of spies) s.mockRestore();
    }
    // Before: the reader ended by the close frame, then twice more (the connection's end and close), and the
    // connection ended again at its end.
    expect(ends.filter((e) => e.ended)).toEqual([]);
    expect(ends.map((e) => e.stream).sort()).toEqual(['connection', 'reader']);
  });

  it('refuses with the quota error frame and close 1008, charging nothing', async () => {
    const u = await chatUser(t, { ...noRateLimits, asks: 0 });
    const r = await ask(url, apiAsk('x'), { cookie: u.cookie });
    expect(r.frames).toEqual([
      expect.objectContaining({ type: 'error', tip: 'errors.noAvailableTotalAskCount' }),
    ]);
    expect([r.code, r.reason]).toEqual([1008, 'errors.noAvailableTotalAskCount']);
  });

  it("another user's conversation is refused (10403 frame)", async () => {
    const owner = await chatUser(t, noRateLimits);
    const other = await chatUser(t, noRateLimits);
    const r = await ask(url, apiAsk('mine'), { cookie: owner.cookie });
    const conv = messages(r.frames)[0]!.conversation_id;
    const parent = (await history(owner.cookie, conv)).current_node!;
    const denied = await ask(url, apiFollowUp(conv, parent, 'x'), { cookie: other.cookie });
    expect(denied.frames[0]).toMatchObject({ type: 'error', tip: 'errors.accessDenied' });
    const missing = await ask(url, apiFollowUp('00000000-0000-4000-8000-000000000000', parent, 'x'), {
      cookie: other.cookie,
    });
    expect(missing.frames[0]).toMatchObject({ type: 'error', tip: 'errors.conversationNotFound' });
    // A superuser may continue any conversation.
    const bySuperuser = await ask(url, apiFollowUp(conv, parent, 'admin'), { cookie: admin });
    expect(bySuperuser.code).toBe(1000);
  });

  it('queues FIFO with positions; a client leaving the queue is removed; nobody stays stuck', async () => {
    const a = await chatUser(t, noRateLimits);
    const b = await chatUser(t, noRateLimits);
    const c = await chatUser(t, noRateLimits);
    emulator.setKnobs({ tokensPerSecond: 100, chunkSize: 4 });
    const first = openAsk(
      url,
      { source: 'openai_web', model: 'gpt_3_5', new_conversation: true, text_content: '#long 150' },
      a.cookie,
    );
    await until(() => first.frames.some((f) => f.type === 'message'));
    const second = openAsk(
      url,
      { source: 'openai_web', model: 'gpt_3_5', new_conversation: true, text_content: 'second' },
      b.cookie,
    );
    await until(() => second.frames.some((f) => f.type === 'queueing'));
    const third = openAsk(
      url,
      { source: 'openai_web', model: 'gpt_3_5', new_conversation: true, text_content: 'third' },
      c.cookie,
    );
    await until(() => third.frames.some((f) => f.type === 'queueing' && f.position === 2));
    expect(second.frames.find((f) => f.type === 'queueing')).toMatchObject({ position: 1 });
    expect(await t.ctx.coordination.chatStatus.get(b.id)).toBe('queueing');
    const status = (await t.app.inject({ url: '/api/status/common', headers: { cookie: admin } })).json()
      .result;
    expect(status).toMatchObject({ is_chatbot_busy: true });
    second.close();
    await second.closed;
    await until(() => third.frames.some((f) => f.type === 'queueing' && f.position === 1));
    await until(async () => (await t.ctx.coordination.chatStatus.get(b.id)) === null);
    expect((await first.closed).code).toBe(1000);
    expect((await third.closed).code).toBe(1000);
    for (const id of [a.id, b.id, c.id]) expect(await t.ctx.coordination.chatStatus.get(id)).toBeNull();
    // The ask that left the queue is in the ask log too: no server, nothing charged.
    const left = await t.ctx.dbHandle.db
      .selectFrom('ask_logs')
      .select(['outcome', 'charged', 'server_id'])
      .where('user_id', '=', b.id)
      .execute();
    expect(left).toEqual([{ outcome: 'canceled', charged: 0, server_id: null }]);
    // b can ask again at once.
    const again = await ask(
      url,
      { source: 'openai_web', model: 'gpt_3_5', new_conversation: true, text_content: 'again' },
      { cookie: b.cookie },
    );
    expect(again.code).toBe(1000);
  });

  it('flushes a long answer to the database while it streams', async () => {
    const u = await chatUser(t, noRateLimits);
    // 600 words sent 4 characters a chunk, 60 chunks a second: well over 10 s of stream; the test watches its
    // start. (The ~1 s flush interval itself is not timed here: that would fail on a busy machine.)
    emulator.setKnobs({ tokensPerSecond: 60, chunkSize: 4 });
    const live = openAsk(url, apiAsk('#long 600'), u.cookie);
    await until(
      () => live.frames.filter((f) => f.type === 'message' && f.message?.role === 'assistant').length > 40,
      10_000,
    );
    const conv = messages(live.frames)[0]!.conversation_id;
    const streamed = lastText(live.frames).length;
    const upstream = emulator.requests
      .filter((r) => r.path === '/v1/chat/completions' && (r.body as { stream?: boolean }).stream)
      .pop()!;
    // Poll (no fixed wait) until the database holds what the client had seen, noting whether the upstream
    // was still streaming at that moment: the answer is saved as it streams, not only at its end.
    let stillStreaming = false;
    await until(async () => {
      const row = await t.ctx.dbHandle.db
        .selectFrom('messages')
        .select('text')
        .where('conversation_id', '=', conv)
        .where('role', '=', 'assistant')
        .executeTakeFirst();
      stillStreaming = upstream.endedAt === undefined;
      return (row?.text.length ?? 0) >= streamed;
    }, 10_000);
    expect(stillStreaming).toBe(true);
    expect(live.frames.some((f) => f.type === 'message' && f.title)).toBe(false);
    live.close();
    await live.closed;
  });

  it('one ask at a time per user', async () => {
    const u = await chatUser(t, noRateLimits);
    emulator.setKnobs({ tokensPerSecond: 100, chunkSize: 4 });
    const first = openAsk(url, apiAsk('#long 100'), u.cookie);
    await until(() => first.frames.some((f) => f.type === 'message'));
    const second = await ask(url, apiAsk('x'), { cookie: u.cookie });
    expect([second.code, second.reason]).toEqual([1008, 'errors.cannotConnectMoreThanOneClient']);
    first.close();
    await first.closed;
  });
});
