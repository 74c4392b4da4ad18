import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { AskRequestInput } from '@cc/contracts';
import { answerText, connect, until, within } from '../test/chat-client';
import { apiAsksLeft, askLogsOf, chatUser } from '../test/chat-users';
import { ControlledUpstream } from '../test/controlled-upstream';
import { LEASE_RENEW_MS } from '../coordination/leases';
import { createTestApp } from '../test/harness';
import type { TestApp } from '../test/harness';
import { reserve } from './quota-ledger';
import type { KnownLimits } from './quota-ledger';
import { INTERRUPTED_AFTER_MS, RunningAsks, settleInterrupted } from './running-asks';

// What happens to answers when their instance stops: drained on SIGTERM (main.ts drives the same lifecycle), or
// settled by another instance after a crash. The multi-process version is scale-out.test.ts.
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

const question = (text: string): AskRequestInput => ({
  source: 'openai_api',
  model: 'gpt_3_5',
  new_conversation: true,
  new_title: 'Stopping',
  text_content: text,
  stream_mode: 'delta',
});

describe('an instance that stops', () => {
  it('a crashed instance: its charged asks are settled as interrupted and refunded, answered or not', async () => {
    const answered = await chatUser(t);
    const unanswered = await chatUser(t);
    // Another instance ran these asks and died: its records stop being renewed.
    const dead = new RunningAsks(t.ctx, 'dead-instance');
    try {
      const charge = (userId: number, askId: string, known?: KnownLimits) =>
        reserve(t.ctx, userId, 'openai_api', 'gpt_3_5', {
          alongside: (trx, c) => dead.record(trx, askId, c),
          known,
        });
      await charge(answered.id, 'ask-1');
      dead.track('ask-1');
      await dead.note(t.ctx.dbHandle.db, 'ask-1', { conversation_id: 'conversation-1' });
      // Charged as for a user without a rate limit: no rate event to give back, the count all the same.
      await charge(unanswered.id, 'ask-2', {
        totalUnlimited: false,
        modelUnlimited: true,
        rateLimited: false,
        budgeted: false,
      });
      dead.track('ask-2');
      const record = await t.ctx.dbHandle.db
        .selectFrom('running_asks')
        .select('rate_event_id')
        .where('ask_id', '=', 'ask-2')
        .executeTakeFirstOrThrow();
      expect(record.rate_event_id).toBeNull();
      await until(async () => (await settleInterrupted(t.ctx, Date.now())) === 0);
      expect([await apiAsksLeft(t, answered.id), await apiAsksLeft(t, unanswered.id)]).toEqual([9, 9]);

      // Once the heartbeat is old enough, another instance settles them, each exactly once.
      const later = Date.now() + INTERRUPTED_AFTER_MS + 1_000;
      const [first, second] = await Promise.all([
        settleInterrupted(t.ctx, later),
        settleInterrupted(t.ctx, later),
      ]);
      expect(first + second).toBe(2);
      // A cut-off answer is not its user's to pay for.
      expect(await askLogsOf(t, answered.id)).toEqual([{ outcome: 'interrupted', charged: 0 }]);
      expect(await askLogsOf(t, unanswered.id)).toEqual([{ outcome: 'interrupted', charged: 0 }]);
      expect([await apiAsksLeft(t, answered.id), await apiAsksLeft(t, unanswered.id)]).toEqual([10, 10]);
    } finally {
      dead.close();
    }
  });

  it('an ask whose record could not be removed is no longer renewed: the sweep settles it once, while others run on', async () => {
    const ended = await chatUser(t);
    const running = await chatUser(t);
    // Its heartbeat runs when the test says (only intervals are faked).
    vi.useFakeTimers({ toFake: ['setInterval'] });
    const live = new RunningAsks(t.ctx, 'busy-instance');
    const db = t.ctx.dbHandle.db;
    try {
      for (const [userId, askId] of [
        [ended.id, 'ask-ended'],
        [running.id, 'ask-running'],
      ] as const) {
        await reserve(t.ctx, userId, 'openai_api', 'gpt_3_5', {
          alongside: (trx, c) => live.record(trx, askId, c),
        });
        live.track(askId);
      }
      // Its settlement could not be written (the database did not answer): not settled here.
      const execute = db.executeQuery.bind(db);
      const down = vi
        .spyOn(db, 'executeQuery')
        .mockImplementation((query, ...rest) =>
          /^delete from "running_asks"/.test('sql' in query ? query.sql : query.compile().sql)
            ? Promise.reject(new Error('the database does not answer'))
            : execute(query, ...rest),
        );
      try {
        expect(await live.finish('ask-ended')).toBe(false);
      } finally {
        down.mockRestore();
      }
      const old = '2020-01-01T00:00:00.000Z';
      await db.updateTable('running_asks').set({ heartbeat_at: old }).execute();
      const heartbeats = async () =>
        Object.fromEntries(
          (await db.selectFrom('running_asks').select(['ask_id', 'heartbeat_at']).execute()).map((r) => [
            r.ask_id,
            r.heartbeat_at,
          ]),
        );
      await vi.advanceTimersByTimeAsync(LEASE_RENEW_MS);
      await until(async () => (await heartbeats())['ask-running'] !== old);
      expect((await heartbeats())['ask-ended']).toBe(old);
      // The sweep settles the one left behind (refunded), and only it.
      expect(await settleInterrupted(t.ctx, Date.now())).toBe(1);
      expect(Object.keys(await heartbeats())).toEqual(['ask-running']);
      expect([await apiAsksLeft(t, ended.id), await apiAsksLeft(t, running.id)]).toEqual([10, 9]);
    } finally {
      live.close();
      vi.useRealTimers();
      await db.deleteFrom('running_asks').execute();
    }
  });

  it('SIGTERM: no new asks (1012), a running answer finishes, one past the limit is kept as cut off and refunded', async () => {
    const finishing = await chatUser(t);
    const cut = await chatUser(t);
    const newcomer = await chatUser(t);
    const first = connect(url, question('finishes'), finishing.cookie);
    const s1 = await upstream.next();
    const second = connect(url, question('cut off'), cut.cookie);
    const s2 = await upstream.next();
    s1.send('Almost ');
    s2.send('Half an answer');
    await until(() => answerText(second.frames) === 'Half an answer');

    t.ctx.lifecycle.beginDrain();
    expect((await t.app.inject({ url: '/api/readyz' })).statusCode).toBe(503);
    const refused = connect(url, question('new'), newcomer.cookie);
    expect(await refused.closed).toEqual({ code: 1012, reason: 'errors.serverRestarting' });

    const settled = t.ctx.lifecycle.settle(1_000);
    s1.send('done');
    s1.finish();
    expect(await first.closed).toEqual({ code: 1000, reason: 'tips.finished' });
    expect(await second.closed).toEqual({ code: 1001, reason: 'tips.interrupted' });
    await settled;
    expect(t.ctx.lifecycle.running).toBe(0);
    await s2.aborted;
    // Kept and refunded, its user free to ask again (elsewhere), nothing left in flight.
    expect(await askLogsOf(t, cut.id)).toEqual([{ outcome: 'interrupted', charged: 0 }]);
    expect(await apiAsksLeft(t, cut.id)).toBe(10);
    expect(await askLogsOf(t, finishing.id)).toEqual([{ outcome: 'success', charged: 1 }]);
    expect(await apiAsksLeft(t, finishing.id)).toBe(9);
    expect(await t.ctx.coordination.chatStatus.get(cut.id)).toBeNull();
    expect(t.ctx.running.size).toBe(0);
    expect(await apiAsksLeft(t, newcomer.id)).toBe(10);
  });

  it('SIGTERM: a queued ask leaves at once (1012), nothing charged or left; the running one finishes', async () => {
    // One slot: the second ask waits for it.
    const d = await createTestApp({
      openai_api: { openai_base_url: upstreamUrl, read_timeout: 30, max_completion_concurrency: 1 },
    });
    try {
      const dUrl = await d.app.listen({ host: '127.0.0.1', port: 0 });
      const running = await chatUser(d);
      const queued = await chatUser(d);
      const first = connect(dUrl, question('runs'), running.cookie);
      const stream = await upstream.next();
      stream.send('Almost ');
      const second = connect(dUrl, question('waits'), queued.cookie);
      await until(() => second.frames.some((f) => f.type === 'queueing'));

      d.ctx.lifecycle.beginDrain();
      // Refused as a new ask is while draining: its client asks again, elsewhere.
      expect(await within(second.closed, 3000, 'the queued ask is refused')).toEqual({
        code: 1012,
        reason: 'errors.serverRestarting',
      });
      expect(new Set(second.frames.map((f) => f.type))).toEqual(new Set(['queueing']));
      expect(await apiAsksLeft(d, queued.id)).toBe(10);
      expect(await askLogsOf(d, queued.id)).toEqual([]);
      const db = d.ctx.dbHandle.db;
      const left = await Promise.all([
        db.selectFrom('running_asks').select('ask_id').where('user_id', '=', queued.id).execute(),
        db.selectFrom('conversations').select('conversation_id').where('user_id', '=', queued.id).execute(),
      ]);
      expect(left).toEqual([[], []]);
      expect(await d.ctx.coordination.chatStatus.get(queued.id)).toBeNull();

      const settled = d.ctx.lifecycle.settle(5_000);
      stream.send('done');
      stream.finish();
      expect(await first.closed).toEqual({ code: 1000, reason: 'tips.finished' });
      await settled;
      expect(answerText(first.frames)).toBe('Almost done');
      expect(await askLogsOf(d, running.id)).toEqual([{ outcome: 'success', charged: 1 }]);
      expect(d.ctx.running.size).toBe(0);
    } finally {
      await d.close();
    }
  });
});
