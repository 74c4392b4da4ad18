import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import type { AskRequestInput, AskResponse } from '@cc/contracts';
import { getUser, updateUser } from '../services/user.service';
import { answerText, connect, until } from '../test/chat-client';
import { apiAsksLeft, askLogsOf, chatUser } from '../test/chat-users';
import { ControlledUpstream } from '../test/controlled-upstream';
import { createTestApp } from '../test/harness';
import { MAX_SOCKETS_PER_USER } from './socket';
import type { TestApp } from '../test/harness';

// Answers belong to the server: a client that loses its socket resumes from the last frame it saw. The upstream
// here is written chunk by chunk by the test, so every step is ordered without timers.
let t: TestApp;
let url: string;
let upstream: ControlledUpstream;
let upstreamUrl: string;

beforeAll(async () => {
  upstream = new ControlledUpstream();
  upstreamUrl = await upstream.listen();
  t = await createTestApp({ openai_api: { read_timeout: 30 } });
  url = await t.app.listen({ host: '127.0.0.1', port: 0 });
});
afterAll(async () => {
  await t.close();
  await upstream.close();
});

const question = (askId: string, text = 'hello'): AskRequestInput => ({
  source: 'openai_api',
  model: 'gpt_3_5',
  new_conversation: true,
  new_title: 'Resumed',
  text_content: text,
  stream_mode: 'delta',
  ask_id: askId,
});

/** Polls the frames received so far (read anew each time) for the answer text to end with `text`. */
const sawText = (frames: () => AskResponse[], text: string) => () =>
  (answerText(frames()) ?? '').endsWith(text);

describe('answers survive a reconnect', () => {
  it('a dropped socket resumes from its last frame: nothing lost, nothing twice', async () => {
    const u = await chatUser(t, { ownApi: upstreamUrl });
    const askId = randomUUID();
    const first = connect(url, question(askId), u.cookie);
    const stream = await upstream.next();
    stream.send('one ');
    stream.send('two ');
    await until(sawText(() => first.frames, 'two '));
    first.drop();
    await first.closed;
    // The answer goes on at the server while nobody watches.
    stream.send('three ');
    stream.send('four ');
    const seen = first.frames.length;
    const second = connect(url, { type: 'resume', ask_id: askId, after: seen }, u.cookie);
    await until(sawText(() => [...first.frames, ...second.frames], 'four '));
    stream.send('five');
    stream.finish();
    expect(await second.closed).toEqual({ code: 1000, reason: 'tips.finished' });
    const all = [...first.frames, ...second.frames];
    expect(answerText(all)).toBe('one two three four five');
    // Frame by frame, the two sockets together saw exactly what one socket would have seen.
    const log = connect(url, { type: 'resume', ask_id: askId, after: 0 }, u.cookie);
    await log.closed;
    expect(all).toEqual(log.frames);
    const conv = await t.ctx.dbHandle.db
      .selectFrom('conversations')
      .select('title')
      .where('user_id', '=', u.id)
      .executeTakeFirstOrThrow();
    expect(conv.title).toBe('Resumed');
  });

  it('after a reload (no ask id known) the current answer replays from its start and goes on live', async () => {
    const u = await chatUser(t, { ownApi: upstreamUrl });
    const first = connect(url, question(randomUUID(), 'reload me'), u.cookie);
    const stream = await upstream.next();
    stream.send('alpha ');
    await until(sawText(() => first.frames, 'alpha '));
    first.close(4000); // the page went away without stopping the answer
    await first.closed;
    const reloaded = connect(url, { type: 'resume', ask_id: null }, u.cookie);
    await until(sawText(() => reloaded.frames, 'alpha '));
    const userMessage = reloaded.frames.find((f) => f.type === 'message' && f.message?.role === 'user');
    expect(userMessage).toBeDefined();
    stream.send('beta');
    stream.finish();
    expect((await reloaded.closed).code).toBe(1000);
    expect(answerText(reloaded.frames)).toBe('alpha beta');
  });

  it('stop works from another tab, and the partial answer is kept and charged', async () => {
    const u = await chatUser(t, { ownApi: upstreamUrl });
    const asking = connect(url, question(randomUUID()), u.cookie);
    const stream = await upstream.next();
    stream.send('partial');
    await until(sawText(() => asking.frames, 'partial'));
    const other = connect(url, { type: 'stop', ask_id: null }, u.cookie);
    await stream.aborted;
    expect(await asking.closed).toEqual({ code: 1000, reason: 'tips.stopped' });
    expect((await other.closed).code).toBe(1000);
    await until(async () => (await t.ctx.coordination.chatStatus.get(u.id)) === null);
    expect(await askLogsOf(t, u.id)).toEqual([{ outcome: 'canceled', charged: 1 }]);
    expect(await apiAsksLeft(t, u.id)).toBe(9);
  });

  it('a finished answer is replayed by its id only, never to a page that resumes "the current answer"', async () => {
    const u = await chatUser(t, { ownApi: upstreamUrl });
    const askId = randomUUID();
    const asking = connect(url, question(askId), u.cookie);
    const stream = await upstream.next();
    stream.send('done');
    stream.finish();
    await asking.closed;
    const current = connect(url, { type: 'resume', ask_id: null }, u.cookie);
    expect(await current.closed).toEqual({ code: 4404, reason: 'errors.answerNotFound' });
    expect(current.frames).toEqual([]);
    const byId = connect(url, { type: 'resume', ask_id: askId, after: 0 }, u.cookie);
    expect(await byId.closed).toEqual({ code: 1000, reason: 'tips.finished' });
    expect(byId.frames).toEqual(asking.frames);
  });

  it('a second ask refused while one runs leaves the running answer resumable', async () => {
    const u = await chatUser(t, { ownApi: upstreamUrl });
    const askId = randomUUID();
    const first = connect(url, question(askId), u.cookie);
    const stream = await upstream.next();
    stream.send('still mine');
    await until(sawText(() => first.frames, 'still mine'));
    const second = connect(url, question(randomUUID(), 'another'), u.cookie);
    expect(await second.closed).toEqual({ code: 1008, reason: 'errors.cannotConnectMoreThanOneClient' });
    const resumed = connect(url, { type: 'resume', ask_id: null }, u.cookie);
    await until(sawText(() => resumed.frames, 'still mine'));
    stream.finish();
    expect((await resumed.closed).code).toBe(1000);
    expect((await first.closed).code).toBe(1000);
  });

  it('one user holds at most MAX_SOCKETS_PER_USER chat sockets, refused with a clear reason', async () => {
    const u = await chatUser(t, { ownApi: upstreamUrl });
    const idle = await Promise.all(
      Array.from({ length: MAX_SOCKETS_PER_USER }, async () => {
        const ws = new WebSocket(`${url.replace(/^http/, 'ws')}/api/chat`, { headers: { cookie: u.cookie } });
        await new Promise((resolve) => ws.once('open', resolve));
        return ws;
      }),
    );
    const extra = connect(url, { type: 'resume', ask_id: null }, u.cookie);
    expect(await extra.closed).toEqual({ code: 1008, reason: 'errors.tooManySockets' });
    const closed = new Promise((resolve) => idle[0]!.once('close', resolve));
    idle[0]!.close(4000);
    await closed;
    await until(async () => {
      const again = connect(url, { type: 'resume', ask_id: null }, u.cookie);
      return (await again.closed).code === 4404;
    });
    for (const ws of idle.slice(1)) ws.close(4000);
  });

  it('a resume of an unknown answer is told so', async () => {
    const u = await chatUser(t, { ownApi: upstreamUrl });
    const none = connect(url, { type: 'resume', ask_id: randomUUID(), after: 0 }, u.cookie);
    expect(await none.closed).toEqual({ code: 4404, reason: 'errors.answerNotFound' });
  });

  it('deactivating a user closes their socket and stops the running answer', async () => {
    const u = await chatUser(t, { ownApi: upstreamUrl });
    const asking = connect(url, question(randomUUID()), u.cookie);
    const stream = await upstream.next();
    stream.send('before');
    await until(sawText(() => asking.frames, 'before'));
    await updateUser(t.ctx, { userId: u.id, patch: { is_active: false } });
    await stream.aborted;
    expect(await asking.closed).toEqual({ code: 1008, reason: 'errors.unauthorized' });
  });

  it('asking counts as activity (last_active_time)', async () => {
    const u = await chatUser(t, { ownApi: upstreamUrl });
    await t.ctx.dbHandle.db
      .updateTable('users')
      .set({ last_active_time: null })
      .where('id', '=', u.id)
      .execute();
    const asking = connect(url, question(randomUUID()), u.cookie);
    const stream = await upstream.next();
    stream.send('hi');
    stream.finish();
    await asking.closed;
    // Shown at once; written with the other marks of its second.
    const shown = (await getUser(t.ctx, u.id)).row.last_active_time;
    expect(shown).toEqual(expect.any(String));
    await t.ctx.activity.flush();
    const row = await t.ctx.dbHandle.db
      .selectFrom('users')
      .select('last_active_time')
      .where('id', '=', u.id)
      .executeTakeFirstOrThrow();
    expect(row.last_active_time).toBe(shown);
  });
});

describe.runIf(!!process.env.CC_TEST_REDIS_URL)('answers survive a reconnect to another instance', () => {
  let b: TestApp;
  let urlB: string;
  beforeAll(async () => {
    b = await createTestApp({ data: { redis_prefix: t.ctx.config.data.redis_prefix } }, undefined, {}, t);
    urlB = await b.app.listen({ host: '127.0.0.1', port: 0 });
  });
  afterAll(() => b.close());

  it('resumes through the other instance and stops from there', async () => {
    const u = await chatUser(t, { ownApi: upstreamUrl });
    const askId = randomUUID();
    const onA = connect(url, question(askId), u.cookie);
    const stream = await upstream.next();
    stream.send('from A ');
    await until(sawText(() => onA.frames, 'from A '));
    onA.drop();
    await onA.closed;
    stream.send('still A ');
    const onB = connect(urlB, { type: 'resume', ask_id: askId, after: onA.frames.length }, u.cookie);
    await until(sawText(() => [...onA.frames, ...onB.frames], 'still A '));
    expect(answerText([...onA.frames, ...onB.frames])).toBe('from A still A ');
    onB.send({ type: 'stop' });
    await stream.aborted;
    expect(await onB.closed).toEqual({ code: 1000, reason: 'tips.stopped' });
  });
});
