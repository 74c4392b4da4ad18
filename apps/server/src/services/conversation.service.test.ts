import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AskRequestInput } from '@cc/contracts';
import { answerFrame, answerText, connect, until, within } from '../test/chat-client';
import type { ChatConnection } from '../test/chat-client';
import { apiAsksLeft, askLogsOf, chatUser } from '../test/chat-users';
import { ControlledUpstream } from '../test/controlled-upstream';
import { ADMIN, createTestApp } from '../test/harness';
import type { TestApp } from '../test/harness';

// A conversation deleted while its answer runs: the answer stops at once, on whichever instance runs it. The upstream
// is written by the test, and held while the deletion happens: only the stop can end the answer.
let t: TestApp;
let url: string;
let upstream: ControlledUpstream;
let upstreamUrl: string;

beforeAll(async () => {
  upstream = new ControlledUpstream();
  upstreamUrl = await upstream.listen();
  t = await createTestApp({ openai_api: { openai_base_url: upstreamUrl, read_timeout: 30 } });
  url = await t.app.listen({ host: '127.0.0.1', port: 0 });
});
afterAll(async () => {
  await t.close();
  await upstream.close();
});

const question = (text: string, more: Partial<AskRequestInput> = {}): AskRequestInput => ({
  source: 'openai_api',
  model: 'gpt_3_5',
  new_conversation: true,
  new_title: 'Deleted while answering',
  text_content: text,
  stream_mode: 'delta',
  ...more,
});

/** Asks a new question and waits until `text`, its answer so far, is stored: the conversation exists. */
async function answering(cookie: string, text: string, base = url) {
  const live = connect(base, question('tell me'), cookie);
  const stream = await upstream.next();
  stream.send(text);
  await until(() => answerText(live.frames) === text);
  await t.ctx.answers.flush();
  return { live, stream, conversationId: answerFrame(live.frames)!.conversation_id };
}

/** What is left of an ask: its record in flight and its user's chat status. */
async function leftInFlight(userId: number) {
  const records = await t.ctx.dbHandle.db
    .selectFrom('running_asks')
    .select('ask_id')
    .where('user_id', '=', userId)
    .execute();
  return { records: records.length, status: await t.ctx.coordination.chatStatus.get(userId) };
}

/** The socket's end, which must come while the upstream is still held (the answer was stopped, not broken). */
async function endOf(live: ChatConnection) {
  const closed = await within(live.closed, 3000, 'the answer stops at once');
  return { closed, last: live.frames.at(-1) };
}

describe('a conversation deleted while its answer runs', () => {
  it('vanished by an admin: the answer stops at once (not found), charged as a stop, nothing kept', async () => {
    const u = await chatUser(t);
    const admin = await t.login(ADMIN.username, ADMIN.password);
    const { live, stream, conversationId } = await answering(u.cookie, 'Half an answer');

    const res = await t.app.inject({
      method: 'DELETE',
      url: `/api/conv/${conversationId}/vanish`,
      headers: { cookie: admin },
    });
    expect(res.statusCode, res.body).toBe(200);
    expect(await endOf(live)).toEqual({
      closed: { code: 1008, reason: 'errors.conversationNotFound' },
      last: { type: 'error', tip: 'errors.conversationNotFound', error_detail: null, conversation_id: null },
    });
    await stream.aborted;
    // Stopped as a user's stop is: what arrived is paid for; its user may ask again.
    expect(await askLogsOf(t, u.id)).toEqual([{ outcome: 'canceled', charged: 1 }]);
    expect(await apiAsksLeft(t, u.id)).toBe(9);
    expect(await leftInFlight(u.id)).toEqual({ records: 0, status: null });
    const messages = await t.ctx.dbHandle.db
      .selectFrom('messages')
      .select('id')
      .where('conversation_id', '=', conversationId)
      .execute();
    expect(messages).toEqual([]);
  });

  it('deleted by its owner while a follow-up waits: stopped at once, refunded, the rest kept', async () => {
    const u = await chatUser(t);
    const first = await answering(u.cookie, 'A first answer');
    first.stream.finish();
    expect(await first.live.closed).toEqual({ code: 1000, reason: 'tips.finished' });
    const parent = answerFrame(first.live.frames)!.message!.id;
    const followUp = connect(
      url,
      question('and then?', {
        new_conversation: false,
        new_title: undefined,
        conversation_id: first.conversationId,
        parent,
      }),
      u.cookie,
    );
    const held = await upstream.next();

    const res = await t.app.inject({
      method: 'DELETE',
      url: `/api/conv/${first.conversationId}`,
      headers: { cookie: u.cookie },
    });
    expect(res.statusCode, res.body).toBe(200);
    expect(await endOf(followUp)).toEqual({
      closed: { code: 1008, reason: 'errors.conversationAlreadyDeleted' },
      last: {
        type: 'error',
        tip: 'errors.conversationAlreadyDeleted',
        error_detail: null,
        conversation_id: null,
      },
    });
    await held.aborted;
    expect(await askLogsOf(t, u.id)).toEqual([
      { outcome: 'success', charged: 1 },
      { outcome: 'canceled', charged: 0 },
    ]);
    expect(await apiAsksLeft(t, u.id)).toBe(9);
    expect(await leftInFlight(u.id)).toEqual({ records: 0, status: null });
    // The deleted conversation keeps its first exchange, for an admin to read.
    const messages = await t.ctx.dbHandle.db
      .selectFrom('messages')
      .select('role')
      .where('conversation_id', '=', first.conversationId)
      .orderBy('seq')
      .execute();
    expect(messages.map((m) => m.role)).toEqual(['user', 'assistant']);
  });
});

describe.runIf(!!process.env.CC_TEST_REDIS_URL)('a conversation vanished through another instance', () => {
  let b: TestApp;
  beforeAll(async () => {
    b = await createTestApp({ data: { redis_prefix: t.ctx.config.data.redis_prefix } }, undefined, {}, t);
  });
  afterAll(() => b.close());

  it('stops its answer on the instance that runs it (the stop goes through Redis)', async () => {
    const u = await chatUser(t);
    const admin = await b.login(ADMIN.username, ADMIN.password);
    const { live, stream, conversationId } = await answering(u.cookie, 'Streaming on A');
    const res = await b.app.inject({
      method: 'DELETE',
      url: `/api/conv/${conversationId}/vanish`,
      headers: { cookie: admin },
    });
    expect(res.statusCode, res.body).toBe(200);
    expect((await endOf(live)).closed).toEqual({ code: 1008, reason: 'errors.conversationNotFound' });
    await stream.aborted;
    expect(await leftInFlight(u.id)).toEqual({ records: 0, status: null });
  });
});
