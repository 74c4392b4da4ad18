import http from 'node:http';
import { sql } from 'kysely';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { messageText } from '@cc/contracts';
import type { AskResponse } from '@cc/contracts';
import { apiAsk, ask, openAsk, until } from '../test/chat-client';
import { apiAsksLeft, askLogsOf, chatUser } from '../test/chat-users';
import { ADMIN, createTestApp, sqlRecorder } from '../test/harness';
import type { TestApp } from '../test/harness';

// An OpenAI-style upstream whose streamed answer has no content at all (only a content filter verdict).
const emptyUpstream = http.createServer((req, res) => {
  req.resume();
  req.on('end', () => {
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    res.write('data: {"choices":[{"delta":{"role":"assistant"},"finish_reason":null}]}\n\n');
    res.write('data: {"choices":[{"delta":{},"finish_reason":"content_filter"}]}\n\n');
    res.end('data: [DONE]\n\n');
  });
});

let t: TestApp;
let url: string;

beforeAll(async () => {
  // A long read timeout: a stalled upstream stays stalled for the whole test.
  t = await createTestApp({ openai_api: { read_timeout: 30 } });
  url = await t.app.listen({ host: '127.0.0.1', port: 0 });
  await new Promise<void>((resolve) => emptyUpstream.listen(0, '127.0.0.1', resolve));
});
afterAll(async () => {
  emptyUpstream.close();
  await t.close();
});

const assistantText = (frames: AskResponse[]) => {
  const last = frames.filter((f) => f.type === 'message' && f.message?.role === 'assistant').pop();
  return last?.type === 'message' && last.message ? messageText(last.message) : '';
};

const CHUNK_SIZE = 8;
/** The stall comes after six stream events: the assistant role, then five pieces of CHUNK_SIZE characters. */
const STALLED_CHARS = 5 * CHUNK_SIZE;

/** An ask whose upstream pauses mid-answer (for the whole test: the read timeout is long). */
function stalledAsk(cookie: string) {
  t.ctx.demo!.emulator.setKnobs({ chunkSize: CHUNK_SIZE });
  return openAsk(url, apiAsk('#fault:stall=6 #long 200'), cookie);
}

/** Waits until everything before the pause has arrived (nothing more comes); returns the conversation id. */
async function untilStalled(live: ReturnType<typeof openAsk>): Promise<string> {
  await until(() => assistantText(live.frames).length >= STALLED_CHARS, 10_000);
  expect(assistantText(live.frames)).toHaveLength(STALLED_CHARS);
  const conv = live.frames.find((f) => f.type === 'message' && f.conversation_id)!;
  return conv.type === 'message' ? conv.conversation_id : '';
}

describe('what an ask leaves behind', () => {
  it('an answer without any content is an upstream error: refunded, logged uncharged, no conversation', async () => {
    const { port } = emptyUpstream.address() as AddressInfo;
    const u = await chatUser(t, { asks: 5, ownApi: `http://127.0.0.1:${port}/v1/` });
    const res = await ask(url, apiAsk('hello'), { cookie: u.cookie });
    // Nothing was kept: the error names no conversation to open.
    expect(res.frames.pop()).toMatchObject({
      type: 'error',
      tip: 'errors.openai.unknown',
      conversation_id: null,
    });
    expect(res.code).not.toBe(1000);
    expect(await apiAsksLeft(t, u.id)).toBe(5);
    const db = t.ctx.dbHandle.db;
    expect(
      await db.selectFrom('conversations').select('conversation_id').where('user_id', '=', u.id).execute(),
    ).toEqual([]);
    expect(await askLogsOf(t, u.id)).toEqual([{ outcome: 'error', charged: 0 }]);
  });

  it('an answer the upstream breaks off keeps what arrived and is refunded; one its user stops is charged', async () => {
    t.ctx.demo!.emulator.setKnobs({ chunkSize: CHUNK_SIZE });
    const broken = await chatUser(t, { asks: 5 });
    const res = await ask(url, apiAsk('#fault:disconnect=4 #long 200'), { cookie: broken.cookie });
    expect(assistantText(res.frames).length).toBeGreaterThan(0);
    expect(res.frames.pop()).toMatchObject({ type: 'error' });
    await until(async () => (await askLogsOf(t, broken.id)).length === 1);
    expect(await askLogsOf(t, broken.id)).toEqual([{ outcome: 'error', charged: 0 }]);
    expect(await apiAsksLeft(t, broken.id)).toBe(5);

    const stopped = await chatUser(t, { asks: 5 });
    const live = stalledAsk(stopped.cookie);
    await untilStalled(live);
    live.close();
    await live.closed;
    await until(async () => (await askLogsOf(t, stopped.id)).length === 1);
    expect(await askLogsOf(t, stopped.id)).toEqual([{ outcome: 'canceled', charged: 1 }]);
    expect(await apiAsksLeft(t, stopped.id)).toBe(4);
  });

  it('while the upstream pauses mid-answer, what arrived reaches the database within about a second', async () => {
    const u = await chatUser(t, { asks: 5 });
    const live = stalledAsk(u.cookie);
    try {
      const id = await untilStalled(live);
      const stored = async () => {
        const row = await t.ctx.dbHandle.db
          .selectFrom('messages')
          .select('text')
          .where('conversation_id', '=', id)
          .where('role', '=', 'assistant')
          .executeTakeFirst();
        return row?.text.length ?? 0;
      };
      await until(async () => (await stored()) >= STALLED_CHARS, 3000);
      // Its record in flight names the conversation, from the same write: another instance settling it finishes
      // what arrived there.
      const record = await t.ctx.dbHandle.db
        .selectFrom('running_asks')
        .select('conversation_id')
        .where('user_id', '=', u.id)
        .executeTakeFirstOrThrow();
      expect(record).toEqual({ conversation_id: id });
    } finally {
      live.close();
      await live.closed;
    }
  });

  it('a conversation destroyed while its answer streams: the answer ends, and its writes are not tried again for ever', async () => {
    const u = await chatUser(t, { asks: 5 });
    const admin = await t.login(ADMIN.username, ADMIN.password);
    const errors = vi.spyOn(t.ctx.log, 'error');
    t.ctx.demo!.emulator.setKnobs({ chunkSize: CHUNK_SIZE, tokensPerSecond: 40 });
    const live = openAsk(url, apiAsk('#long 200'), u.cookie);
    try {
      await until(() => assistantText(live.frames).length > 0, 10_000);
      const conv = live.frames.find((f) => f.type === 'message' && f.conversation_id)!;
      const id = conv.type === 'message' ? conv.conversation_id : '';
      await t.ctx.answers.flush();
      const vanished = await t.app.inject({
        method: 'DELETE',
        url: `/api/conv/${id}/vanish`,
        headers: { cookie: admin },
      });
      expect(vanished.statusCode).toBe(200);
      // The answer stops at once, said as such; a write already under way fails (the conversation is gone).
      expect((await live.closed).code).not.toBe(1000);
      expect(live.frames.at(-1)).toMatchObject({ type: 'error', tip: 'errors.conversationNotFound' });
      const failedWrites = () =>
        errors.mock.calls.filter(([, message]) =>
          String(message).includes('writing a streaming answer failed'),
        ).length;
      const after = failedWrites();
      for (let i = 0; i < 3; i++) await t.ctx.answers.flush();
      expect(failedWrites()).toBe(after);
    } finally {
      errors.mockRestore();
      t.ctx.demo!.emulator.setKnobs({ tokensPerSecond: 0 });
      live.close();
      await live.closed;
    }
  });

  it('an answer still arriving is stored as streaming, outside the search index; stopping it finishes it', async () => {
    const u = await chatUser(t, { asks: 5 });
    const live = stalledAsk(u.cookie);
    const db = t.ctx.dbHandle.db;
    let id = '';
    const rows = () =>
      db
        .selectFrom('messages')
        .select(['id', 'role', 'streaming'])
        .where('conversation_id', '=', id)
        .orderBy('seq')
        .execute();
    const indexed = async () =>
      t.ctx.dbHandle.dialect === 'sqlite'
        ? (
            await db
              .selectFrom('message_search')
              .select('message_id')
              .where('conversation_id', '=', id)
              .execute()
          ).map((r) => r.message_id)
        : null;
    try {
      id = await untilStalled(live);
      await t.ctx.answers.flush();
      const during = await rows();
      expect(during.map((r) => [r.role, r.streaming])).toEqual([
        ['user', 1],
        ['assistant', 1],
      ]);
      if (t.ctx.dbHandle.dialect === 'sqlite') expect(await indexed()).toEqual([]);
    } finally {
      live.close();
      await live.closed;
    }
    // Stopped: what arrived is kept, finished and searchable.
    await until(async () => (await rows()).every((r) => r.streaming === 0), 5000);
    const after = await rows();
    if (t.ctx.dbHandle.dialect === 'sqlite')
      expect((await indexed())!.sort()).toEqual(after.map((r) => r.id).sort());
  });
});

/** A test app of its own that records every statement it runs, in order (SQL printing at debug level). */
async function recordingApp() {
  const { log, statements } = sqlRecorder();
  const app = await createTestApp({ common: { print_sql: true } }, undefined, { log });
  return { app, statements };
}

describe('how an ask writes', () => {
  it.skipIf(!!process.env.CC_TEST_DATABASE_URL)(
    'when the settling transaction fails, each part is written on its own: charged once, nothing left in flight',
    async () => {
      const u = await chatUser(t, { asks: 5 });
      const db = t.ctx.dbHandle.db;
      // The ask log refuses rows (the settling transaction then fails as a whole).
      await sql`create trigger refuse_ask_logs before insert on ask_logs begin select raise(abort, 'refused'); end`.execute(
        db,
      );
      try {
        const res = await ask(url, apiAsk('#long 5'), { cookie: u.cookie });
        expect(res.code).toBe(1000);
      } finally {
        await sql`drop trigger refuse_ask_logs`.execute(db);
      }
      expect(await apiAsksLeft(t, u.id)).toBe(4);
      expect(
        await db.selectFrom('running_asks').select('ask_id').where('user_id', '=', u.id).execute(),
      ).toEqual([]);
      expect(t.ctx.running.size).toBe(0);
    },
  );

  it('in three transactions (the charge with its record in flight, the answer, the settlement), nothing outside', async () => {
    const { app, statements } = await recordingApp();
    try {
      const appUrl = await app.app.listen({ host: '127.0.0.1', port: 0 });
      const u = await app.createUser();
      const cookie = await app.login(u.row.username, u.password);
      const question = {
        source: 'openai_api' as const,
        model: 'gpt_3_5',
        new_conversation: true,
        text_content: '#long 5',
      };
      // The first ask also records the user's activity (at most every few minutes).
      expect((await ask(appUrl, question, { cookie })).code).toBe(1000);
      statements.length = 0;
      expect((await ask(appUrl, question, { cookie })).code).toBe(1000);

      const transactions: string[][] = [];
      const outside: string[] = [];
      let open: string[] | null = null;
      for (const sql of statements) {
        if (sql === 'begin') open = [];
        else if (sql === 'commit' || sql === 'rollback') {
          transactions.push(open!);
          open = null;
        } else if (open) open.push(sql);
        else if (/^(insert|update|delete)/.test(sql)) outside.push(sql);
      }
      const tables = (tx: string[]) => [
        ...new Set(
          tx.map((sql) => /^(?:insert into|update|delete from) "(\w+)"/.exec(sql)?.[1]).filter(Boolean),
        ),
      ];
      expect(outside).toEqual([]);
      // The user has a total count and a rate limit, no budget and no count for the model: the charge takes the
      // count and records the rate event, and reserves nothing; the new conversation's messages have no file links
      // to replace; the settlement adds the cost without reading the budgets.
      expect(transactions.map(tables)).toEqual([
        ['quota_counters', 'rate_events', 'running_asks'],
        ['conversations', 'messages', 'running_asks'],
        ['conversations', 'running_asks', 'user_settings', 'ask_logs', 'ask_stats_rollups'],
      ]);
      expect(statements.filter((s) => /^select "(remaining|budget_total)"/.test(s))).toEqual([]);
      expect(transactions.map((tx) => tx.length)).toEqual([3, 5, 5]);
    } finally {
      await app.close();
    }
  });

  it('while an answer streams, each later write is its grown message alone (no file links, no conversation row)', async () => {
    const { app, statements } = await recordingApp();
    let asking: ReturnType<typeof openAsk> | null = null;
    try {
      const appUrl = await app.app.listen({ host: '127.0.0.1', port: 0 });
      app.ctx.demo!.emulator.setKnobs({ chunkSize: CHUNK_SIZE, tokensPerSecond: 40 });
      const u = await app.createUser();
      const cookie = await app.login(u.row.username, u.password);
      const live = openAsk(appUrl, apiAsk('#long 200'), cookie);
      asking = live;
      const grown = async (beyond: number) => {
        await until(() => assistantText(live.frames).length > beyond, 10_000);
        return assistantText(live.frames).length;
      };
      // The first write creates the conversation with both messages.
      let seen = await grown(0);
      await app.ctx.answers.flush();
      statements.length = 0;
      // Every write from now on (this test's or the once-a-second one's) while the answer grows. (What the client
      // sees may lag what the server holds by a frame: a flush after it grew may find nothing new.)
      while (statements.filter((sql) => sql === 'commit').length < 3) {
        seen = await grown(seen);
        await app.ctx.answers.flush();
      }
      const transactions: string[][] = [];
      let open: string[] | null = null;
      for (const sql of statements) {
        if (sql === 'begin') open = [];
        else if (sql === 'commit') transactions.push(open!);
        else open?.push(/^\w+(?: into| from)? "\w+"/.exec(sql)![0]);
      }
      for (const written of transactions) expect(written).toEqual(['insert into "messages"']);
    } finally {
      asking?.close();
      await asking?.closed;
      await app.close();
    }
  });
});
