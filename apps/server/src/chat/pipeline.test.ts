import { randomUUID } from 'node:crypto';
import type { Emulator } from '@cc/upstream-emulator';
import WebSocket from 'ws';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { messageText } from '@cc/contracts';
import type { ApiChatMessage, AskResponse, ConversationHistory } from '@cc/contracts';
import { getUser } from '../services/user.service';
import type { SourceAdapter } from '../sources/types';
import { userMessageBase } from '../sources/user-message';
import { apiAsk, apiFollowUp, ask, connect, until } from '../test/chat-client';
import { apiAsksLeft, askLogsOf, chatUser } from '../test/chat-users';
import { ControlledUpstream } from '../test/controlled-upstream';
import { createTestApp } from '../test/harness';
import type { TestApp } from '../test/harness';

let t: TestApp;
let url: string;
let emulator: Emulator;
let upstream: ControlledUpstream;
let upstreamUrl: string;

beforeAll(async () => {
  upstream = new ControlledUpstream();
  upstreamUrl = await upstream.listen();
  // Asks admitted one per turn (no slice): which asks are admitted before an upstream request goes out does not
  // depend on how fast the machine is.
  t = await createTestApp({ openai_api: { read_timeout: 30 } }, undefined, { startSliceMs: 0 });
  url = await t.app.listen({ host: '127.0.0.1', port: 0 });
  emulator = t.ctx.demo!.emulator;
});
afterAll(async () => {
  await t.close();
  await upstream.close();
});

async function history(app: TestApp, cookie: string, id: string): Promise<ConversationHistory> {
  const res = await app.app.inject({ url: `/api/conv/${id}`, headers: { cookie } });
  expect(res.statusCode, res.body).toBe(200);
  return res.json().result;
}

const conversationOf = (frames: AskResponse[]) =>
  frames.find((f): f is Extract<AskResponse, { type: 'message' }> => f.type === 'message')!.conversation_id;

/** A source that is not OpenAI at all: it answers by reversing the question, in two chunks, with no HTTP. */
const reverseAdapter: SourceAdapter = {
  source: 'openai_api',
  checkRequest: () => ({ pluginIds: null }),
  checkUploads: () => undefined,
  sharedCap: () => null,
  newConversationId: () => randomUUID(),
  userMessage: (input, createTime) => ({
    ...userMessageBase(input, createTime),
    source: 'openai_api',
    content: { content_type: 'text', text: input.text },
    metadata: {},
  }),
  userTarget: () => null,
  async *ask(input) {
    const reversed = [...input.text].reverse().join('');
    const half = Math.ceil(reversed.length / 2);
    const answer: ApiChatMessage = {
      id: randomUUID(),
      source: 'openai_api',
      role: 'assistant',
      author_name: null,
      model: input.model,
      create_time: new Date().toISOString(),
      parent: input.userMessageId,
      children: [],
      content: { content_type: 'text', text: reversed.slice(0, half) },
      metadata: {},
    };
    yield { type: 'message', message: answer };
    yield { type: 'message', message: { ...answer, content: { content_type: 'text', text: reversed } } };
  },
  setTitle: async () => undefined,
  generateTitle: async ({ question }) => `Reversed: ${question}`,
};

describe('a source is one adapter', () => {
  it('a registered adapter answers end to end over the real websocket', async () => {
    const own = await createTestApp();
    try {
      own.ctx.adapters.register(reverseAdapter);
      const ownUrl = await own.app.listen({ host: '127.0.0.1', port: 0 });
      const u = await chatUser(own, { webUnlimited: true });
      const r = await ask(ownUrl, apiAsk('stressed'), { cookie: u.cookie });
      expect([r.code, r.reason]).toEqual([1000, 'tips.finished']);
      expect(r.frames.some((f) => f.type === 'message' && f.title === 'Reversed: stressed')).toBe(true);
      const h = await history(own, u.cookie, conversationOf(r.frames));
      const texts = Object.values(h.mapping).map((m) => [m.role, messageText(m)]);
      expect(texts).toEqual(
        expect.arrayContaining([
          ['user', 'stressed'],
          ['assistant', 'desserts'],
        ]),
      );
      expect(h.title).toBe('Reversed: stressed');
      expect(await apiAsksLeft(own, u.id)).toBe(9);
      expect(await askLogsOf(own, u.id)).toEqual([{ outcome: 'success', charged: 1 }]);
      expect(emulator.requests.filter((x) => x.path === '/v1/chat/completions')).toEqual([]);
    } finally {
      await own.close();
    }
  });
});

describe('OpenAI-compatible streams', () => {
  const question = {
    source: 'openai_api',
    model: 'gpt_3_5',
    new_conversation: true,
    new_title: 'T',
  } as const;

  it('a finish reason followed by a close without [DONE] is a complete answer', async () => {
    const u = await chatUser(t, { webUnlimited: true, ownApi: upstreamUrl });
    const pending = ask(url, { ...question, text_content: 'hi' }, { cookie: u.cookie });
    const stream = await upstream.next();
    stream.send('complete answer');
    stream.finish({ done: false });
    const r = await pending;
    expect([r.code, r.reason]).toEqual([1000, 'tips.finished']);
    const log = await t.ctx.dbHandle.db
      .selectFrom('ask_logs')
      .select('outcome')
      .where('user_id', '=', u.id)
      .executeTakeFirstOrThrow();
    expect(log.outcome).toBe('success');
  });

  // With SQLite and in-process coordination an admission never waits on I/O, so the order is the queue's alone;
  // with PostgreSQL or Redis an ask that waits on the network lets the next one in (it holds them up a turn at most).
  it.skipIf(!!process.env.CC_TEST_DATABASE_URL || !!process.env.CC_TEST_REDIS_URL)(
    'of many asks that arrive at once, the first reaches the upstream before the last one is admitted',
    async () => {
      const n = 20;
      const users = [];
      for (let i = 0; i < n; i++) users.push(await chatUser(t, { webUnlimited: true, ownApi: upstreamUrl }));
      const sockets = users.map(
        (u) => new WebSocket(`${url.replace(/^http/, 'ws')}/api/chat`, { headers: { cookie: u.cookie } }),
      );
      await Promise.all(sockets.map((s) => new Promise((resolve) => s.once('open', resolve))));
      const closed = sockets.map((s) => new Promise<number>((resolve) => s.once('close', resolve)));
      const runningBefore = t.ctx.running.size;
      // Every question sent in one go: the server reads them together.
      for (const s of sockets) s.send(JSON.stringify({ ...question, text_content: 'hi' }));
      const first = await upstream.next();
      // Asks charged (admitted) when the first upstream request arrived.
      const admitted = t.ctx.running.size - runningBefore;
      // Every ask is answered before anything is asserted: the next tests find no stream of this one waiting.
      for (let i = 0; i < n; i++) {
        const stream = i === 0 ? first : await upstream.next();
        stream.send('an answer');
        stream.finish();
      }
      expect(await Promise.all(closed)).toEqual(Array(n).fill(1000));
      expect(admitted).toBeGreaterThan(0);
      expect(admitted).toBeLessThan(n / 4);
    },
  );

  it('a close with neither a finish reason nor [DONE] is a cut-off answer', async () => {
    const u = await chatUser(t, { webUnlimited: true, ownApi: upstreamUrl });
    const pending = ask(url, { ...question, text_content: 'hi' }, { cookie: u.cookie });
    const stream = await upstream.next();
    stream.send('half an ans');
    stream.cut();
    const r = await pending;
    expect(r.frames.at(-1)).toMatchObject({ type: 'error', tip: 'errors.httpError' });
    expect(r.code).toBe(1014);
  });
});

describe('openai_web', () => {
  const plugins = ['plugin-0a1b2c3d-0001-4e5f-8a9b-000000000001'];

  it('a GPT-4 (Plugins) conversation takes follow-ups, which use its plugins', async () => {
    const u = await chatUser(t, { webUnlimited: true });
    const first = await ask(
      url,
      {
        source: 'openai_web',
        model: 'gpt_4_plugins',
        new_conversation: true,
        text_content: 'first',
        openai_web_plugin_ids: plugins,
      },
      { cookie: u.cookie },
    );
    expect(first.code).toBe(1000);
    const id = conversationOf(first.frames);
    const h = await history(t, u.cookie, id);
    // What the web app sends: the conversation's plugins again.
    const follow = await ask(
      url,
      {
        source: 'openai_web',
        model: 'gpt_4_plugins',
        new_conversation: false,
        conversation_id: id,
        parent: h.current_node!,
        text_content: 'second',
        openai_web_plugin_ids: plugins,
      },
      { cookie: u.cookie },
    );
    expect([follow.code, follow.reason]).toEqual([1000, 'tips.finished']);
    const sent = emulator.requests
      .filter((x) => x.path === '/backend-api/conversation' && x.method === 'POST')
      .map((x) => x.body as { conversation_id: string | null; plugin_ids: string[] | null })
      .filter((b) => b.conversation_id === id);
    expect(sent.at(-1)?.plugin_ids).toEqual(plugins);
  });

  it('plugins on a model without plugins are refused before anything is charged', async () => {
    const u = await chatUser(t, { webUnlimited: true });
    const r = await ask(
      url,
      {
        source: 'openai_web',
        model: 'gpt_4',
        new_conversation: true,
        text_content: 'x',
        openai_web_plugin_ids: plugins,
      },
      { cookie: u.cookie },
    );
    expect(r.frames.at(-1)).toMatchObject({ type: 'error', tip: 'errors.invalidParams' });
    expect(r.code).toBe(1008);
  });

  it('an answer stopped before any content still records the conversation the upstream created', async () => {
    const u = await chatUser(t, { webUnlimited: true });
    emulator.setKnobs({ firstTokenLatencyMs: 30_000 });
    try {
      const c = connect(
        url,
        { source: 'openai_web', model: 'gpt_3_5', new_conversation: true, text_content: 'stop me' },
        u.cookie,
      );
      await until(() => c.frames.some((f) => f.type === 'message' && f.message?.role === 'user'));
      c.close(1000);
      await c.closed;
      await until(async () => (await t.ctx.coordination.chatStatus.get(u.id)) === null);
    } finally {
      emulator.setKnobs({ firstTokenLatencyMs: 0 });
    }
    const rows = await t.ctx.dbHandle.db
      .selectFrom('conversations')
      .select(['user_id', 'is_valid'])
      .where('user_id', '=', u.id)
      .execute();
    expect(rows).toEqual([{ user_id: u.id, is_valid: 1 }]);
  });
});

describe('regenerate, edit and branches', () => {
  type Msg = ConversationHistory['mapping'][string];
  const textOf = (h: ConversationHistory, role: string) =>
    Object.values(h.mapping)
      .filter((m: Msg) => m.role === role)
      .map((m: Msg) => messageText(m));

  it('openai_api: regenerate answers the same question again beside the old answer; edit asks beside the question', async () => {
    const u = await chatUser(t, { webUnlimited: true });
    const first = await ask(
      url,
      {
        source: 'openai_api',
        model: 'gpt_3_5',
        new_conversation: true,
        new_title: 'B',
        text_content: 'first',
      },
      { cookie: u.cookie },
    );
    const id = conversationOf(first.frames);
    let h = await history(t, u.cookie, id);
    const question = Object.values(h.mapping).find((m: Msg) => m.role === 'user')!;
    const before = (await getUser(t.ctx, u.id)).counters;
    const again = await ask(
      url,
      {
        source: 'openai_api',
        model: 'gpt_3_5',
        new_conversation: false,
        conversation_id: id,
        parent: question.id,
        action: 'variant',
        text_content: 'first',
      },
      { cookie: u.cookie },
    );
    expect([again.code, again.reason]).toEqual([1000, 'tips.finished']);
    // The context re-sent is the path up to the question, not the old answer.
    const sent = emulator.requests.filter((x) => x.path === '/v1/chat/completions').at(-1)!.body as {
      messages: { role: string; content: string }[];
    };
    expect(sent.messages).toEqual([{ role: 'user', content: 'first' }]);
    h = await history(t, u.cookie, id);
    expect(textOf(h, 'user')).toEqual(['first']);
    expect(h.mapping[question.id]!.children).toHaveLength(2);
    expect(h.mapping[h.current_node!]!.parent).toBe(question.id);
    const after = (await getUser(t.ctx, u.id)).counters;
    const total = (c: typeof before) =>
      c.find((x) => x.source === 'openai_api' && x.model === '*')?.remaining;
    expect(total(after)).toBe(total(before)! - 1);

    // Edit the (first) question: a new question beside it, with its own answer.
    const edited = await ask(url, apiFollowUp(id, question.parent ?? null, 'first, edited'), {
      cookie: u.cookie,
    });
    expect(edited.code).toBe(1000);
    h = await history(t, u.cookie, id);
    expect(textOf(h, 'user').sort()).toEqual(['first', 'first, edited']);
    const current = h.mapping[h.current_node!]!;
    expect(messageText(h.mapping[current.parent!]!)).toBe('first, edited');

    // Switching back to the first branch is stored: a reload shows it.
    const firstAnswer = h.mapping[question.id]!.children[0]!;
    const put = await t.app.inject({
      method: 'PUT',
      url: `/api/conv/${id}/current-node`,
      headers: { cookie: u.cookie },
      payload: { current_node: firstAnswer },
    });
    expect(put.statusCode, put.body).toBe(200);
    expect((await history(t, u.cookie, id)).current_node).toBe(firstAnswer);
    const foreign = await t.app.inject({
      method: 'PUT',
      url: `/api/conv/${id}/current-node`,
      headers: { cookie: u.cookie },
      payload: { current_node: randomUUID() },
    });
    expect(foreign.json()).toMatchObject({
      message: 'errors.invalidParams',
      result: 'errors.detail.notInConversation',
    });
  });

  it("openai_web: regenerate uses the backend's variant action and keeps both answers; the branch choice is kept upstream", async () => {
    const u = await chatUser(t, { webUnlimited: true });
    const first = await ask(
      url,
      { source: 'openai_web', model: 'gpt_3_5', new_conversation: true, text_content: 'hello web' },
      { cookie: u.cookie },
    );
    const id = conversationOf(first.frames);
    let h = await history(t, u.cookie, id);
    const question = Object.values(h.mapping).find((m: Msg) => m.role === 'user')!;
    const again = await ask(
      url,
      {
        source: 'openai_web',
        model: 'gpt_3_5',
        new_conversation: false,
        conversation_id: id,
        parent: question.id,
        action: 'variant',
        text_content: 'hello web',
      },
      { cookie: u.cookie },
    );
    expect([again.code, again.reason], JSON.stringify(again.frames.at(-1))).toEqual([1000, 'tips.finished']);
    const body = emulator.requests.filter((x) => x.path === '/backend-api/conversation').at(-1)!.body as {
      action: string;
      parent_message_id: string;
      messages: { id: string }[];
    };
    expect(body.action).toBe('variant');
    expect(body.messages[0]!.id).toBe(question.id);
    expect(body.parent_message_id).toBe(question.parent);
    h = await history(t, u.cookie, id);
    expect(h.mapping[question.id]!.children).toHaveLength(2);
    const older = h.mapping[question.id]!.children.find((c) => c !== h.current_node)!;
    const put = await t.app.inject({
      method: 'PUT',
      url: `/api/conv/${id}/current-node`,
      headers: { cookie: u.cookie },
      payload: { current_node: older },
    });
    expect(put.statusCode, put.body).toBe(200);
    // Opening a web conversation refreshes it from the upstream, which now has the same current node.
    expect((await history(t, u.cookie, id)).current_node).toBe(older);
  });

  // One user for the next tests (logins from one address are rate-limited).
  let shared: ReturnType<typeof chatUser> | undefined;
  const asker = () => (shared ??= chatUser(t, { webUnlimited: true }));

  it('a regenerate answers the stored question, whatever text comes with it', async () => {
    const u = await asker();
    const first = await ask(
      url,
      {
        source: 'openai_api',
        model: 'gpt_3_5',
        new_conversation: true,
        new_title: 'R',
        text_content: 'the question',
      },
      { cookie: u.cookie },
    );
    const id = conversationOf(first.frames);
    const question = Object.values((await history(t, u.cookie, id)).mapping).find(
      (m: Msg) => m.role === 'user',
    )!;
    const again = await ask(
      url,
      {
        source: 'openai_api',
        model: 'gpt_3_5',
        new_conversation: false,
        conversation_id: id,
        parent: question.id,
        action: 'variant',
        text_content: 'another question',
      },
      { cookie: u.cookie },
    );
    expect(again.code).toBe(1000);
    const sent = emulator.requests.filter((x) => x.path === '/v1/chat/completions').at(-1)!.body as {
      messages: { role: string; content: string }[];
    };
    expect(sent.messages).toEqual([{ role: 'user', content: 'the question' }]);
  });

  it("a follow-up's parent is a message of its conversation: another's or an unknown one is refused, uncharged", async () => {
    const u = await asker();
    const start = (text: string) =>
      ask(
        url,
        {
          source: 'openai_api',
          model: 'gpt_3_5',
          new_conversation: true,
          new_title: text,
          text_content: text,
        },
        { cookie: u.cookie },
      );
    const id = conversationOf((await start('mine')).frames);
    const other = await history(t, u.cookie, conversationOf((await start('other')).frames));
    const elsewhere = Object.values(other.mapping).find((m: Msg) => m.role === 'assistant')!.id;
    const left = async () =>
      (await getUser(t.ctx, u.id)).counters.find((x) => x.source === 'openai_api' && x.model === '*')
        ?.remaining;
    const before = await left();
    for (const parent of [elsewhere, randomUUID()]) {
      for (const count of [0, -1]) {
        const r = await ask(
          url,
          {
            source: 'openai_api',
            model: 'gpt_3_5',
            new_conversation: false,
            conversation_id: id,
            parent,
            api_context_message_count: count,
            text_content: 'follow-up',
          },
          { cookie: u.cookie },
        );
        expect(r.frames.some((f) => f.type === 'message')).toBe(false);
        expect(r.frames.at(-1)).toMatchObject({
          type: 'error',
          tip: 'errors.invalidParams',
          error_detail: 'errors.detail.parentNotInConversation',
        });
      }
    }
    expect(await left()).toBe(before);
    expect(Object.keys((await history(t, u.cookie, id)).mapping)).toHaveLength(2);
  });

  it('openai_web: the first question is edited and answered again at once, under the root it was asked under', async () => {
    const u = await asker();
    const first = await ask(
      url,
      { source: 'openai_web', model: 'gpt_3_5', new_conversation: true, text_content: 'first web question' },
      { cookie: u.cookie },
    );
    const id = conversationOf(first.frames);
    const root = (
      emulator.requests.filter((x) => x.path === '/backend-api/conversation').at(-1)!.body as {
        parent_message_id: string;
      }
    ).parent_message_id;
    const question = first.frames.find(
      (f): f is Extract<AskResponse, { type: 'message' }> =>
        f.type === 'message' && f.message?.role === 'user',
    )!.message!;
    expect(question.parent).toBe(root);
    const follow = (parent: string | null, action: 'next' | 'variant', text: string) =>
      ask(
        url,
        {
          source: 'openai_web',
          model: 'gpt_3_5',
          new_conversation: false,
          conversation_id: id,
          parent,
          action,
          text_content: text,
        },
        { cookie: u.cookie },
      );
    // Before the conversation is opened (read from the upstream) again.
    const again = await follow(question.id, 'variant', 'first web question');
    expect([again.code, again.reason], JSON.stringify(again.frames.at(-1))).toEqual([1000, 'tips.finished']);
    const edited = await follow(null, 'next', 'first web question, edited');
    expect([edited.code, edited.reason], JSON.stringify(edited.frames.at(-1))).toEqual([
      1000,
      'tips.finished',
    ]);
    const sent = emulator.requests.filter((x) => x.path === '/backend-api/conversation').at(-1)!.body as {
      parent_message_id: string;
    };
    expect(sent.parent_message_id).toBe(root);
    const h = await history(t, u.cookie, id);
    const questions = Object.values(h.mapping).filter((m: Msg) => m.role === 'user');
    expect(questions.map((m) => m.parent)).toEqual([root, root]);
    // Asked under the root by its id, once the conversation was read again.
    expect((await follow(root, 'next', 'third version')).code).toBe(1000);
    // Only an answer is continued.
    for (const parent of [question.id, null]) {
      const r = await follow(parent, 'next', ':continue');
      expect(r.frames.at(-1)).toMatchObject({
        tip: 'errors.invalidParams',
        error_detail: 'errors.detail.notAnAnswer',
      });
    }
  });

  it('a regenerate names a question of the conversation', async () => {
    const u = await chatUser(t, { webUnlimited: true });
    const first = await ask(
      url,
      { source: 'openai_api', model: 'gpt_3_5', new_conversation: true, new_title: 'Q', text_content: 'q' },
      { cookie: u.cookie },
    );
    const id = conversationOf(first.frames);
    const h = await history(t, u.cookie, id);
    const answer = Object.values(h.mapping).find((m: Msg) => m.role === 'assistant')!;
    const r = await ask(
      url,
      {
        source: 'openai_api',
        model: 'gpt_3_5',
        new_conversation: false,
        conversation_id: id,
        parent: answer.id,
        action: 'variant',
        text_content: 'q',
      },
      { cookie: u.cookie },
    );
    expect(r.frames.at(-1)).toMatchObject({ type: 'error', tip: 'errors.invalidParams' });
    expect(r.code).toBe(1008);
  });
});
