import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  DEFAULT_API_MODEL_CODES,
  DEFAULT_MODEL_PRICES,
  DEFAULT_WEB_MODEL_CODES,
  fromMicros,
  messageText,
} from '@cc/contracts';
import type {
  AskResponse,
  ConversationHistory,
  MyUsage,
  UsageReport,
  UsageRow,
  UserRead,
} from '@cc/contracts';
import { joinSettings } from '../presenters/user.presenter';
import { getUser, updateUserSettings } from '../services/user.service';
import { countTokens } from '../sources/tokens';
import { apiAsk, ask } from '../test/chat-client';
import { ControlledUpstream } from '../test/controlled-upstream';
import { ADMIN, createTestApp } from '../test/harness';
import type { TestApp } from '../test/harness';

let t: TestApp;
let url: string;
let admin: string;
let upstream: ControlledUpstream;
let upstreamUrl: string;

beforeAll(async () => {
  upstream = new ControlledUpstream();
  upstreamUrl = await upstream.listen();
  t = await createTestApp({ openai_api: { read_timeout: 30 } });
  url = await t.app.listen({ host: '127.0.0.1', port: 0 });
  admin = await t.login(ADMIN.username, ADMIN.password);
});
afterAll(async () => {
  await t.close();
  await upstream.close();
});

async function user(options: { custom?: boolean; total?: number; perModel?: Record<string, number> } = {}) {
  const u = await t.createUser();
  const s = joinSettings(u.setting, u.counters);
  s.openai_api.rate_limits = [];
  s.openai_web.rate_limits = [];
  s.openai_api.total_ask_count = options.total ?? 10;
  s.openai_api.per_model_ask_count = options.perModel ?? {};
  if (options.custom) {
    s.openai_api.allow_custom_openai_api = true;
    s.openai_api.custom_openai_api_settings = { url: upstreamUrl, key: 'sk-test' };
  }
  await updateUserSettings(t.ctx, u.row.id, s);
  return { id: u.row.id, username: u.row.username, cookie: await t.login(u.row.username, u.password) };
}

function logsOf(userId: number) {
  return t.ctx.dbHandle.db
    .selectFrom('ask_logs')
    .select(['model', 'outcome', 'input_tokens', 'output_tokens', 'tokens_estimated'])
    .where('user_id', '=', userId)
    .orderBy('id')
    .execute();
}

const conversationOf = (frames: AskResponse[]) =>
  frames.find((f): f is Extract<AskResponse, { type: 'message' }> => f.type === 'message')!.conversation_id;

async function answerText(cookie: string, conversationId: string): Promise<string> {
  const res = await t.app.inject({ url: `/api/conv/${conversationId}`, headers: { cookie } });
  const h = res.json<{ result: ConversationHistory }>().result;
  return Object.values(h.mapping)
    .filter((m) => m.role !== 'user')
    .map((m) => messageText(m))
    .filter(Boolean)
    .join('\n');
}

describe('spend budgets over the real websocket', () => {
  it('an ask reserves, then is charged its tokens at the prices; a budget too small for the next is refused', async () => {
    const u = await user();
    const setting = joinSettings((await getUser(t.ctx, u.id)).setting, (await getUser(t.ctx, u.id)).counters);
    await updateUserSettings(t.ctx, u.id, { ...setting, credits: 1, daily_budget: 0.5 });
    const request = apiAsk('hello there');
    const r = await ask(url, request, { cookie: u.cookie });
    expect(r.code, JSON.stringify(r.frames.at(-1))).toBe(1000);
    const [log] = await t.ctx.dbHandle.db
      .selectFrom('ask_logs')
      .select(['input_tokens', 'output_tokens', 'cost'])
      .where('user_id', '=', u.id)
      .execute();
    const price = DEFAULT_MODEL_PRICES.gpt_3_5!;
    const cost = Math.ceil(log!.input_tokens! * price.input + log!.output_tokens! * price.output);
    expect(Number(log!.cost)).toBe(cost);
    const me = await t.app.inject({ url: '/api/user/me', headers: { cookie: u.cookie } });
    const budget = me.json<{ result: UserRead }>().result.setting.budget!;
    expect(budget).toMatchObject({
      currency: 'USD',
      warn_at: 0.8,
      total: { limit: 1, spent: fromMicros(cost), resets_at: null },
      daily: { limit: 0.5, spent: fromMicros(cost) },
      monthly: { limit: -1, left: -1 },
    });
    expect(budget.total.left).toBeCloseTo(1 - fromMicros(cost), 6);
    // Less left than the next ask reserves (its question and 1000 output tokens): refused with the budget error.
    await updateUserSettings(t.ctx, u.id, { ...setting, credits: fromMicros(cost + 1000), daily_budget: -1 });
    const refused = await ask(url, request, { cookie: u.cookie });
    expect(refused.frames.at(-1)).toMatchObject({ type: 'error', tip: 'errors.budgetSpent' });
    expect([refused.code, refused.reason]).toEqual([1008, 'errors.budgetSpent']);
  });
});

describe('tokens recorded per ask', () => {
  // Two long words: the emulator counts words (2), a tokenizer counts many more tokens.
  const question = 'supercalifragilisticexpialidocious antidisestablishmentarianism';

  it("openai_api: the upstream's usage from the stream's final chunk, not estimated", async () => {
    const u = await user();
    const r = await ask(url, apiAsk(question), { cookie: u.cookie });
    expect(r.code, JSON.stringify(r.frames.at(-1))).toBe(1000);
    const answer = await answerText(u.cookie, conversationOf(r.frames));
    const [log] = await logsOf(u.id);
    // The emulator reports words as tokens, as its usage chunk says.
    expect(log).toMatchObject({
      outcome: 'success',
      input_tokens: 2,
      output_tokens: answer.trim().split(/\s+/).length,
      tokens_estimated: 0,
    });
  });

  it('openai_api without usage in the stream: counted with the tokenizer, marked estimated', async () => {
    const u = await user({ custom: true });
    const pending = ask(url, apiAsk(question), { cookie: u.cookie });
    const stream = await upstream.next();
    stream.send('an answer of a provider that omits usage');
    stream.finish();
    expect((await pending).code).toBe(1000);
    const code = DEFAULT_API_MODEL_CODES.gpt_3_5;
    const [log] = await logsOf(u.id);
    expect(log).toMatchObject({
      input_tokens: countTokens(code, question),
      output_tokens: countTokens(code, 'an answer of a provider that omits usage'),
      tokens_estimated: 1,
    });
    expect(log!.input_tokens).toBeGreaterThan(2);
  });

  it('a stream cut before its end: estimated from the question and the answer so far', async () => {
    const u = await user({ custom: true });
    let answered: () => void = () => undefined;
    const arrived = new Promise<void>((resolve) => (answered = resolve));
    const pending = ask(url, apiAsk(question), {
      cookie: u.cookie,
      onFrame: (f) => {
        if (f.type === 'message' && (f.delta || f.message?.role === 'assistant')) answered();
      },
    });
    const stream = await upstream.next();
    stream.send('half an answer');
    // cut once the partial answer reached the client (so the server holds it)
    await arrived;
    stream.cut();
    expect((await pending).code).not.toBe(1000);
    const [log] = await logsOf(u.id);
    expect(log).toMatchObject({
      outcome: 'error',
      input_tokens: countTokens('gpt_3_5', question),
      output_tokens: countTokens('gpt_3_5', 'half an answer'),
      tokens_estimated: 1,
    });
  });

  it('openai_web (no usage upstream): estimated from the question and the answer with the tokenizer', async () => {
    const u = await user();
    const r = await ask(
      url,
      { source: 'openai_web', model: 'gpt_3_5', new_conversation: true, text_content: question },
      { cookie: u.cookie },
    );
    expect(r.code, JSON.stringify(r.frames.at(-1))).toBe(1000);
    const answer = await answerText(u.cookie, conversationOf(r.frames));
    const code = DEFAULT_WEB_MODEL_CODES.gpt_3_5;
    const [log] = await logsOf(u.id);
    expect(answer.length).toBeGreaterThan(0);
    expect(log).toMatchObject({
      input_tokens: countTokens(code, question),
      output_tokens: countTokens(code, answer),
      tokens_estimated: 1,
    });
  });

  it('a question that names a special token (<|endoftext|>) is counted as text, and the answer is kept', async () => {
    const u = await user();
    const special = 'what does <|endoftext|> mean?';
    const r = await ask(
      url,
      { source: 'openai_web', model: 'gpt_3_5', new_conversation: true, text_content: special },
      { cookie: u.cookie },
    );
    expect(r.code, JSON.stringify(r.frames.at(-1))).toBe(1000);
    const [log] = await logsOf(u.id);
    expect(log).toMatchObject({ outcome: 'success', tokens_estimated: 1 });
    expect(log!.input_tokens).toBe(countTokens(DEFAULT_WEB_MODEL_CODES.gpt_3_5, special));
    expect(log!.input_tokens).toBeGreaterThan(5);
  });

  it('a 20,000-character answer is counted in well under a second', () => {
    const text = 'The quick brown fox jumps over the lazy dog, 敏捷的棕色狐狸。 '
      .repeat(400)
      .slice(0, 20_000);
    countTokens('gpt-4o', 'warm up');
    const started = performance.now();
    expect(countTokens('gpt-4o', text)).toBeGreaterThan(1000);
    expect(performance.now() - started).toBeLessThan(1000);
  });
});

describe('usage report', () => {
  const DAY = '2026-03-';
  let a: { id: number; username: string; cookie: string };
  let b: { id: number; username: string; cookie: string };

  beforeAll(async () => {
    a = await user();
    b = await user();
    const row = (
      userId: number,
      time: string,
      model: string,
      tokens: [number, number] | null,
      outcome = 'success',
      estimated = 0,
    ) => ({
      time: `${time}Z`,
      source: 'openai_api',
      model,
      user_id: userId,
      conversation_id: null,
      server_id: null,
      queueing_time: 1,
      ask_time: 3,
      outcome,
      charged: 1,
      error: null,
      input_tokens: tokens?.[0] ?? null,
      output_tokens: tokens?.[1] ?? null,
      tokens_estimated: tokens ? estimated : null,
    });
    await t.ctx.dbHandle.db
      .insertInto('ask_logs')
      .values([
        { ...row(a.id, `${DAY}01T10:00:00.000`, 'gpt_3_5', [10, 100]), cost: 12_345 },
        {
          ...row(a.id, `${DAY}01T11:00:00.000`, 'gpt_4', [20, 200], 'success', 1),
          queueing_time: 3,
          ask_time: 5,
        },
        row(a.id, `${DAY}02T09:00:00.000`, 'gpt_4', [30, 300], 'error'),
        // written before tokens were recorded
        row(b.id, `${DAY}02T12:00:00.000`, 'gpt_3_5', null),
        row(b.id, `${DAY}03T12:00:00.000`, '=HYPERLINK("http://evil")', [1, 2], 'timeout'),
        // outside the range
        row(a.id, '2026-02-28T23:59:59.999', 'gpt_4', [1000, 1000]),
      ])
      .execute();
  });

  const range = `start=${DAY}01T00:00:00Z&end=${DAY}04T00:00:00Z`;
  async function report(query: string, cookie = admin): Promise<UsageReport> {
    const res = await t.app.inject({ url: `/api/system/usage?${range}&${query}`, headers: { cookie } });
    expect(res.statusCode, res.body).toBe(200);
    return res.json<{ result: UsageReport }>().result;
  }
  const measures = (r: UsageRow | undefined) =>
    r && [
      r.asks,
      r.input_tokens,
      r.output_tokens,
      r.estimated_asks,
      r.errors,
      r.avg_queue_seconds,
      r.avg_answer_seconds,
    ];

  it('sums per user, with the username', async () => {
    const r = await report('group=user');
    expect(r.rows).toHaveLength(2);
    const ra = r.rows.find((x) => x.user_id === a.id);
    expect(ra?.username).toBe(a.username);
    expect(measures(ra)).toEqual([3, 60, 600, 1, 1, 5 / 3, 11 / 3].map((x) => Math.round(x * 1000) / 1000));
    expect(measures(r.rows.find((x) => x.user_id === b.id))).toEqual([2, 1, 2, 0, 1, 1, 3]);
    // the most asks first
    expect(r.rows[0]!.user_id).toBe(a.id);
  });

  it('sums per model and per UTC day; filters by user', async () => {
    const byModel = await report('group=model');
    expect(byModel.rows.map((x) => [x.source, x.model, x.asks, x.input_tokens, x.output_tokens])).toEqual([
      ['openai_api', 'gpt_3_5', 2, 10, 100],
      ['openai_api', 'gpt_4', 2, 50, 500],
      ['openai_api', '=HYPERLINK("http://evil")', 1, 1, 2],
    ]);
    const byDay = await report('group=day');
    expect(byDay.rows.map((x) => [x.day, x.asks, x.input_tokens, x.output_tokens, x.errors])).toEqual([
      ['2026-03-01', 2, 30, 300, 0],
      ['2026-03-02', 2, 30, 300, 1],
      ['2026-03-03', 1, 1, 2, 1],
    ]);
    const mine = await report(`group=day&user_id=${a.id}`);
    expect(mine.rows.map((x) => [x.day, x.asks])).toEqual([
      ['2026-03-01', 2],
      ['2026-03-02', 1],
    ]);
  });

  it('exports CSV with formula cells kept as text', async () => {
    const res = await t.app.inject({
      url: `/api/system/usage.csv?${range}&group=model`,
      headers: { cookie: admin },
    });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toContain('text/csv');
    expect(res.headers['content-disposition']).toMatch(/^attachment; filename="usage-model-[\d-]+\.csv"$/);
    const lines = res.body
      .replace(/^\uFEFF/, '')
      .trimEnd()
      .split('\r\n');
    expect(lines[0]).toBe(
      'source,model,asks,input_tokens,output_tokens,estimated_asks,avg_queue_seconds,avg_answer_seconds,errors,cost',
    );
    expect(lines[1]).toBe('openai_api,gpt_3_5,2,10,100,0,1,3,0,0.012345');
    expect(lines[3]).toBe(`openai_api,"'=HYPERLINK(""http://evil"")",1,1,2,0,1,3,1,0`);
  });

  it('is for superusers only; a bad range or group is a clear error', async () => {
    for (const path of ['/api/system/usage', '/api/system/usage.csv']) {
      const res = await t.app.inject({ url: path, headers: { cookie: a.cookie } });
      expect(res.statusCode).toBe(403);
    }
    const bad = await t.app.inject({ url: '/api/system/usage?group=week', headers: { cookie: admin } });
    expect(bad.statusCode).toBe(422);
    const reversed = await t.app.inject({
      url: `/api/system/usage?start=${DAY}04T00:00:00Z&end=${DAY}01T00:00:00Z`,
      headers: { cookie: admin },
    });
    expect(reversed.statusCode).toBe(422);
    expect(reversed.json()).toMatchObject({ code: expect.any(Number), message: expect.any(String) });
  });
});

describe('my usage', () => {
  it("counts this month's asks and tokens and shows the limit that binds per model", async () => {
    const u = await user({ total: 5, perModel: { gpt_4: 2, gpt_3_5: 9 } });
    const now = new Date();
    const thisMonth = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1, 0, 0, 1)).toISOString();
    const lastMonth = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 0, 23, 59)).toISOString();
    const base = {
      source: 'openai_api',
      user_id: u.id,
      conversation_id: null,
      server_id: null,
      queueing_time: 0,
      ask_time: 1,
      outcome: 'success',
      charged: 1,
      error: null,
      tokens_estimated: 0,
    };
    await t.ctx.dbHandle.db
      .insertInto('ask_logs')
      .values([
        { ...base, time: thisMonth, model: 'gpt_4', input_tokens: 7, output_tokens: 70 },
        { ...base, time: thisMonth, model: 'gpt_3_5', input_tokens: 3, output_tokens: 30 },
        { ...base, time: lastMonth, model: 'gpt_4', input_tokens: 500, output_tokens: 500 },
      ])
      .execute();
    const res = await t.app.inject({ url: '/api/user/me/usage', headers: { cookie: u.cookie } });
    expect(res.statusCode, res.body).toBe(200);
    const me = res.json<{ result: MyUsage }>().result;
    expect(me.period_start).toBe(
      new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1)).toISOString(),
    );
    expect([me.asks, me.input_tokens, me.output_tokens]).toEqual([2, 10, 100]);
    const api = me.sources.find((s) => s.source === 'openai_api')!;
    expect([api.asks, api.total_remaining]).toEqual([2, 5]);
    const left = Object.fromEntries(api.models.map((m) => [m.model, m.remaining]));
    expect(left.gpt_4).toBe(2);
    expect(left.gpt_3_5).toBe(5);
  });
});
