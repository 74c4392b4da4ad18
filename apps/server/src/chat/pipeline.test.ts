import { randomUUID } from 'node:crypto';
import type { Emulator } from '@cc/upstream-emulator';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { messageText } from '@cc/contracts';
import type { ApiChatMessage, AskResponse, ConversationHistory } from '@cc/contracts';
import { getUser, updateUserSettings } from '../services/user.service';
import { joinSettings } from '../services/user-settings';
import type { SourceAdapter } from '../sources/types';
import { ask, connect, until } from '../test/chat-client';
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
  t = await createTestApp({ openai_api: { read_timeout: 30 } });
  url = await t.app.listen({ host: '127.0.0.1', port: 0 });
  emulator = t.ctx.demo!.emulator;
});
afterAll(async () => {
  await t.close();
  await upstream.close();
});

async function user(app: TestApp = t, custom = false) {
  const u = await app.createUser();
  const s = joinSettings(u.setting, u.counters);
  s.openai_api.rate_limits = [];
  s.openai_web.rate_limits = [];
  s.openai_api.total_ask_count = 10;
  if (custom) {
    s.openai_api.allow_custom_openai_api = true;
    s.openai_api.custom_openai_api_settings = { url: upstreamUrl, key: 'sk-test' };
  }
  await updateUserSettings(app.ctx, u.row.id, s);
  return { id: u.row.id, cookie: await app.login(u.row.username, u.password) };
}

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
    id: input.userMessageId,
    source: 'openai_api',
    role: 'user',
    author_name: null,
    model: null,
    create_time: createTime,
    parent: input.parent,
    children: [],
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
      const u = await user(own);
      const r = await ask(
        ownUrl,
        { source: 'openai_api', model: 'gpt_3_5', new_conversation: true, text_content: 'stressed' },
        { cookie: u.cookie },
      );
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
      const loaded = await getUser(own.ctx, u.id);
      expect(joinSettings(loaded.setting, loaded.counters).openai_api.total_ask_count).toBe(9);
      const logs = await own.ctx.dbHandle.db
        .selectFrom('ask_logs')
        .select(['outcome', 'charged'])
        .where('user_id', '=', u.id)
        .execute();
      expect(logs).toEqual([{ outcome: 'success', charged: 1 }]);
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
    const u = await user(t, true);
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

  it('a close with neither a finish reason nor [DONE] is a cut-off answer', async () => {
    const u = await user(t, true);
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
    const u = await user();
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
    const u = await user();
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
    const u = await user();
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
