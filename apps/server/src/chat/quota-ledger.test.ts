import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openaiApiAdapter } from '../sources/openai-api';
import { createTestApp } from '../test/harness';
import type { TestApp } from '../test/harness';
import { getUser, updateUserSettings } from '../services/user.service';
import { joinSettings } from '../presenters/user.presenter';
import { fromMicros } from '@cc/contracts';
import { budgetRow, userSettingRepository } from '../repositories/user-setting.repository';
import { checkQuota, knownLimits, reserve } from './quota-ledger';
import type { QuotaCheckInput } from './quota-ledger';

let t: TestApp;

/** What the user spent in all, currency units. */
async function spent(userId: number): Promise<number> {
  const row = await userSettingRepository(t.ctx.dbHandle.db).findByUserId(userId);
  return fromMicros(Number(row!.spent_total));
}
beforeAll(async () => {
  t = await createTestApp({}, undefined, { demo: false });
});
afterAll(() => t.close());

async function userWith(patch: (s: ReturnType<typeof joinSettings>) => void) {
  const u = await t.createUser();
  const s = joinSettings(u.setting, u.counters);
  patch(s);
  await updateUserSettings(t.ctx, u.row.id, s);
  const loaded = await getUser(t.ctx, u.row.id);
  return { id: u.row.id, setting: joinSettings(loaded.setting, loaded.counters) };
}

const input = (
  u: { id: number; setting: QuotaCheckInput['setting'] },
  extra: Partial<QuotaCheckInput> = {},
): QuotaCheckInput => ({
  userId: u.id,
  setting: u.setting,
  source: 'openai_api',
  model: 'gpt_3_5',
  newConversation: true,
  attachments: 0,
  images: 0,
  rules: openaiApiAdapter,
  ...extra,
});

describe('quota ledger', () => {
  it('charges exactly the available count under 50 parallel reservations', async () => {
    const u = await userWith((s) => {
      s.openai_api.total_ask_count = 10;
      s.openai_api.per_model_ask_count = {};
      s.credits = -1;
    });
    const results = await Promise.allSettled(
      Array.from({ length: 50 }, () => reserve(t.ctx, u.id, 'openai_api', 'gpt_3_5')),
    );
    const ok = results.filter((r) => r.status === 'fulfilled');
    const refused = results.filter((r): r is PromiseRejectedResult => r.status === 'rejected');
    expect(ok).toHaveLength(10);
    expect(refused).toHaveLength(40);
    expect(new Set(refused.map((r) => (r.reason as { messageKey: string }).messageKey))).toEqual(
      new Set(['errors.noAvailableTotalAskCount']),
    );
    const after = await getUser(t.ctx, u.id);
    expect(joinSettings(after.setting, after.counters).openai_api.total_ask_count).toBe(0);
  });

  it('refund gives back counts and the money reserved exactly once', async () => {
    const u = await userWith((s) => {
      s.openai_api.total_ask_count = 2;
      s.openai_api.per_model_ask_count = { gpt_4: 1 };
      s.credits = 5;
    });
    const r = await reserve(t.ctx, u.id, 'openai_api', 'gpt_4', { estimate: 1_000_000 });
    let s = joinSettings((await getUser(t.ctx, u.id)).setting, (await getUser(t.ctx, u.id)).counters);
    expect([s.openai_api.total_ask_count, s.openai_api.per_model_ask_count.gpt_4, await spent(u.id)]).toEqual(
      [1, 0, 1],
    );
    await expect(reserve(t.ctx, u.id, 'openai_api', 'gpt_4')).rejects.toMatchObject({
      messageKey: 'errors.noAvailableModelAskCount',
    });
    // The failed reservation charged nothing (the total it took was rolled back).
    s = joinSettings((await getUser(t.ctx, u.id)).setting, (await getUser(t.ctx, u.id)).counters);
    expect(s.openai_api.total_ask_count).toBe(1);
    await r.refund();
    await r.refund();
    s = joinSettings((await getUser(t.ctx, u.id)).setting, (await getUser(t.ctx, u.id)).counters);
    expect([s.openai_api.total_ask_count, s.openai_api.per_model_ask_count.gpt_4, await spent(u.id)]).toEqual(
      [2, 1, 0],
    );
  });

  it('checks in the predecessor order with the exact error keys', async () => {
    const cases: [string, (s: QuotaCheckInput['setting']) => void, Partial<QuotaCheckInput>?][] = [
      ['errors.userNotAllowToUseChatType', (s) => (s.openai_api.allow_to_use = false)],
      ['errors.userChatTypeExpired', (s) => (s.openai_api.valid_until = '2020-01-01T00:00:00Z')],
      [
        'errors.userNotAllowToAskAtThisTime',
        (s) => (s.openai_api.daily_available_time_slots = [{ start_time: '00:00:00', end_time: '00:00:01' }]),
        { now: new Date('2026-01-01T12:00:00Z') },
      ],
      ['errors.userNotAllowToUseModel', (s) => (s.openai_api.available_models = ['gpt_4'])],
      ['errors.noAvailableTotalAskCount', (s) => (s.openai_api.total_ask_count = 0)],
      ['errors.noAvailableModelAskCount', (s) => (s.openai_api.per_model_ask_count = { gpt_3_5: 0 })],
      ['errors.maxConversationCountReached', (s) => (s.openai_api.max_conv_count = 0)],
      ['errors.budgetSpent', (s) => (s.credits = 0)],
      ['errors.dailyBudgetSpent', (s) => (s.daily_budget = 0)],
      ['errors.monthlyBudgetSpent', (s) => (s.monthly_budget = 0)],
      ['errors.uploadingNotAllowed', () => undefined, { images: 1 }],
    ];
    for (const [key, patch, extra] of cases) {
      const u = await userWith((s) => {
        s.credits = -1;
        s.openai_api.rate_limits = [];
        patch(s);
      });
      await expect(checkQuota(t.ctx, input(u, extra)), key).rejects.toMatchObject({ messageKey: key });
    }
    // An earlier check wins over a later one.
    const both = await userWith((s) => {
      s.openai_api.allow_to_use = false;
      s.openai_api.total_ask_count = 0;
    });
    await expect(checkQuota(t.ctx, input(both))).rejects.toMatchObject({
      messageKey: 'errors.userNotAllowToUseChatType',
    });
  });

  it('enforces sliding-window rate limits', async () => {
    const u = await userWith((s) => {
      s.credits = -1;
      s.openai_api.total_ask_count = -1;
      s.openai_api.rate_limits = [{ window_seconds: 60, max_requests: 2 }];
    });
    for (let i = 0; i < 2; i++) {
      await checkQuota(t.ctx, input(u));
      await reserve(t.ctx, u.id, 'openai_api', 'gpt_3_5');
    }
    await expect(checkQuota(t.ctx, input(u))).rejects.toMatchObject({ messageKey: 'errors.rateLimited' });
    // Outside the window the events no longer count.
    await expect(
      checkQuota(t.ctx, input(u, { now: new Date(Date.now() + 61_000) })),
    ).resolves.toBeUndefined();
  });

  it('a time slot wrapping midnight allows the night', async () => {
    const u = await userWith((s) => {
      s.credits = -1;
      s.openai_api.rate_limits = [];
      s.openai_api.daily_available_time_slots = [{ start_time: '22:00:00', end_time: '06:00:00' }];
    });
    await expect(
      checkQuota(t.ctx, input(u, { now: new Date('2026-01-01T23:30:00Z') })),
    ).resolves.toBeUndefined();
    await expect(
      checkQuota(t.ctx, input(u, { now: new Date('2026-01-01T12:00:00Z') })),
    ).rejects.toMatchObject({
      messageKey: 'errors.userNotAllowToAskAtThisTime',
    });
  });
});

describe('spend budgets', () => {
  const QUARTER = 250_000; // micros

  async function budgets(userId: number) {
    const row = await userSettingRepository(t.ctx.dbHandle.db).findByUserId(userId);
    return {
      total: fromMicros(Number(row!.spent_total)),
      daily: fromMicros(Number(row!.spent_daily)),
      monthly: fromMicros(Number(row!.spent_monthly)),
    };
  }

  const unlimitedCounts = (s: QuotaCheckInput['setting']) => {
    s.openai_api.total_ask_count = -1;
    s.openai_api.per_model_ask_count = {};
    s.openai_api.rate_limits = [];
  };

  it('50 parallel asks with a total budget for exactly 7: 7 reserved, never overspent', async () => {
    const u = await userWith((s) => {
      unlimitedCounts(s);
      s.credits = 1.75;
    });
    const results = await Promise.allSettled(
      Array.from({ length: 50 }, () => reserve(t.ctx, u.id, 'openai_api', 'gpt_3_5', { estimate: QUARTER })),
    );
    const refused = results.filter((r): r is PromiseRejectedResult => r.status === 'rejected');
    expect(results.length - refused.length).toBe(7);
    expect(new Set(refused.map((r) => (r.reason as { messageKey: string }).messageKey))).toEqual(
      new Set(['errors.budgetSpent']),
    );
    expect((await budgets(u.id)).total).toBe(1.75);
  });

  it('50 parallel asks with a daily budget for exactly 3: 3 reserved; the error says until when', async () => {
    const u = await userWith((s) => {
      unlimitedCounts(s);
      s.credits = -1;
      s.daily_budget = 0.75;
      s.monthly_budget = 100;
    });
    const results = await Promise.allSettled(
      Array.from({ length: 50 }, () => reserve(t.ctx, u.id, 'openai_api', 'gpt_3_5', { estimate: QUARTER })),
    );
    const refused = results.filter((r): r is PromiseRejectedResult => r.status === 'rejected');
    expect(results.length - refused.length).toBe(3);
    const tomorrow = new Date(Date.now() + 86_400_000).toISOString().slice(0, 10);
    for (const r of refused)
      expect(r.reason).toMatchObject({
        messageKey: 'errors.dailyBudgetSpent',
        params: { time: `${tomorrow} 00:00 UTC` },
      });
    expect(await budgets(u.id)).toEqual({ total: 0.75, daily: 0.75, monthly: 0.75 });
    await expect(checkQuota(t.ctx, input(u))).rejects.toMatchObject({
      messageKey: 'errors.dailyBudgetSpent',
    });
  });

  it('says which budget refuses: the total before the day, and an ask larger than a whole day as such', async () => {
    const spentBoth = await userWith((s) => {
      unlimitedCounts(s);
      s.credits = 0.25;
      s.daily_budget = 0.25;
    });
    await reserve(t.ctx, spentBoth.id, 'openai_api', 'gpt_3_5', { estimate: QUARTER });
    // Both are spent: the total never starts again, so "tomorrow" would be wrong.
    await expect(
      reserve(t.ctx, spentBoth.id, 'openai_api', 'gpt_3_5', { estimate: QUARTER }),
    ).rejects.toMatchObject({ messageKey: 'errors.budgetSpent' });

    const small = await userWith((s) => {
      unlimitedCounts(s);
      s.credits = -1;
      s.daily_budget = 0.2;
    });
    // Nothing spent, but the ask is reserved at more than the whole day's budget: no day would take it.
    await expect(
      reserve(t.ctx, small.id, 'openai_api', 'gpt_3_5', { estimate: QUARTER }),
    ).rejects.toMatchObject({ messageKey: 'errors.askOverBudget' });
    expect((await budgets(small.id)).daily).toBe(0);
  });

  it('settling gives back what was reserved too much and charges a higher cost only up to what is left', async () => {
    const u = await userWith((s) => {
      unlimitedCounts(s);
      s.credits = 1;
    });
    const a = await reserve(t.ctx, u.id, 'openai_api', 'gpt_3_5', { estimate: 500_000 });
    const b = await reserve(t.ctx, u.id, 'openai_api', 'gpt_3_5', { estimate: 400_000 });
    expect((await budgets(u.id)).total).toBe(0.9);
    // 0.7 real cost: 0.2 more than reserved, but only 0.1 is left: charged 0.6, the budget is spent, not overrun.
    expect(await a.settle(700_000)).toBe(600_000);
    expect((await budgets(u.id)).total).toBe(1);
    // 0.1 real cost of 0.4 reserved: 0.3 goes back.
    expect(await b.settle(100_000)).toBe(100_000);
    expect((await budgets(u.id)).total).toBe(0.7);
    // Settled once: a second settle or refund changes nothing.
    await b.refund();
    expect((await budgets(u.id)).total).toBe(0.7);
  });

  it('concurrent settlements above their reservations never take the budget below 0', async () => {
    const u = await userWith((s) => {
      unlimitedCounts(s);
      s.credits = 1;
      s.monthly_budget = 0.9;
    });
    const reservations = await Promise.all(
      Array.from({ length: 5 }, () => reserve(t.ctx, u.id, 'openai_api', 'gpt_3_5', { estimate: 100_000 })),
    );
    const charged = await Promise.all(reservations.map((r) => r.settle(500_000)));
    expect(charged.reduce((n, c) => n + c, 0)).toBe(900_000);
    expect(await budgets(u.id)).toEqual({ total: 0.9, daily: 0.9, monthly: 0.9 });
    await expect(checkQuota(t.ctx, input(u))).rejects.toMatchObject({
      messageKey: 'errors.monthlyBudgetSpent',
    });
  });

  it("a new day starts the daily budget again by itself; a refund does not give yesterday's spending back", async () => {
    const u = await userWith((s) => {
      unlimitedCounts(s);
      s.credits = -1;
      s.daily_budget = 1;
    });
    const settings = userSettingRepository(t.ctx.dbHandle.db);
    const yesterday = new Date(Date.now() - 86_400_000);
    const yesterdayKeys = {
      day: yesterday.toISOString().slice(0, 10),
      month: yesterday.toISOString().slice(0, 7),
    };
    await settings.addSpent(u.id, 1_000_000, yesterdayKeys);
    const r = await reserve(t.ctx, u.id, 'openai_api', 'gpt_3_5', { estimate: 500_000 });
    expect((await budgets(u.id)).daily).toBe(0.5);
    // Giving back an amount reserved yesterday leaves today's spending alone.
    await settings.releaseBudget(u.id, 300_000, yesterdayKeys.day);
    expect((await budgets(u.id)).daily).toBe(0.5);
    await r.refund();
    expect((await budgets(u.id)).daily).toBe(0);
  });

  it('-1 means unlimited: no budget, any cost is charged and nothing is refused', async () => {
    const u = await userWith((s) => {
      unlimitedCounts(s);
      s.credits = -1;
    });
    const r = await reserve(t.ctx, u.id, 'openai_api', 'gpt_4', { estimate: 5_000_000_000 });
    expect(await r.settle(9_000_000_000)).toBe(9_000_000_000);
    await expect(checkQuota(t.ctx, input(u))).resolves.toBeUndefined();
  });
});

describe('a charge skips what the settings read says cannot refuse it', () => {
  async function knownFor(u: { id: number; setting: QuotaCheckInput['setting'] }, model = 'gpt_3_5') {
    const row = await userSettingRepository(t.ctx.dbHandle.db).findByUserId(u.id);
    return knownLimits(u.setting, 'openai_api', model, budgetRow(row!));
  }
  const rateEvents = async (userId: number) =>
    (await t.ctx.dbHandle.db.selectFrom('rate_events').select('id').where('user_id', '=', userId).execute())
      .length;

  it('records a rate event only when a rate limit applies; a charge without one is refunded all the same', async () => {
    const free = await userWith((s) => {
      s.credits = -1;
      s.openai_api.total_ask_count = 3;
      s.openai_api.rate_limits = [];
    });
    const r = await reserve(t.ctx, free.id, 'openai_api', 'gpt_3_5', { known: await knownFor(free) });
    expect(r.charge.rateEventId).toBeNull();
    expect(await rateEvents(free.id)).toBe(0);
    await r.refund();
    const after = await getUser(t.ctx, free.id);
    expect(joinSettings(after.setting, after.counters).openai_api.total_ask_count).toBe(3);

    const limited = await userWith((s) => {
      s.credits = -1;
      s.openai_api.rate_limits = [{ window_seconds: 60, max_requests: 5 }];
    });
    const l = await reserve(t.ctx, limited.id, 'openai_api', 'gpt_3_5', { known: await knownFor(limited) });
    expect(await rateEvents(limited.id)).toBe(1);
    await l.refund();
    expect(await rateEvents(limited.id)).toBe(0);
  });

  it('a limited counter is still taken exactly under 50 parallel charges; an unlimited one is not touched', async () => {
    const u = await userWith((s) => {
      s.credits = -1;
      s.openai_api.rate_limits = [];
      s.openai_api.total_ask_count = -1;
      s.openai_api.per_model_ask_count = { gpt_3_5: 10 };
    });
    const known = await knownFor(u);
    expect(known).toMatchObject({ totalUnlimited: true, modelUnlimited: false });
    const results = await Promise.allSettled(
      Array.from({ length: 50 }, () => reserve(t.ctx, u.id, 'openai_api', 'gpt_3_5', { known })),
    );
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(10);
    const after = joinSettings((await getUser(t.ctx, u.id)).setting, (await getUser(t.ctx, u.id)).counters);
    expect([after.openai_api.total_ask_count, after.openai_api.per_model_ask_count.gpt_3_5]).toEqual([-1, 0]);
  });

  it('without a budget the cost is added when settling; a budget set meanwhile still caps what is charged', async () => {
    const u = await userWith((s) => {
      s.credits = -1;
      s.openai_api.rate_limits = [];
    });
    const known = await knownFor(u);
    expect(known.budgeted).toBe(false);
    const a = await reserve(t.ctx, u.id, 'openai_api', 'gpt_3_5', { known });
    expect(await a.settle(300_000)).toBe(300_000);
    expect(await spent(u.id)).toBe(0.3);
    // An admin sets a total budget of 0.5 while the next ask runs: it is charged only what is left of it.
    const b = await reserve(t.ctx, u.id, 'openai_api', 'gpt_3_5', { known });
    const settings = userSettingRepository(t.ctx.dbHandle.db);
    const row = await settings.findByUserId(u.id);
    await t.ctx.dbHandle.db
      .updateTable('user_settings')
      .set({ budget_total: 500_000 })
      .where('id', '=', row!.id)
      .execute();
    expect(await b.settle(900_000)).toBe(200_000);
    expect(await spent(u.id)).toBe(0.5);
  });
});
