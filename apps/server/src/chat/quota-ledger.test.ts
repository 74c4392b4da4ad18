import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openaiApiAdapter } from '../sources/openai-api';
import { createTestApp } from '../test/harness';
import type { TestApp } from '../test/harness';
import { getUser, updateUserSettings } from '../services/user.service';
import { joinSettings } from '../presenters/user.presenter';
import { checkQuota, reserve } from './quota-ledger';
import type { QuotaCheckInput } from './quota-ledger';

let t: TestApp;
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

  it('refund gives back counts and credits exactly once', async () => {
    const u = await userWith((s) => {
      s.openai_api.total_ask_count = 2;
      s.openai_api.per_model_ask_count = { gpt_4: 1 };
      s.credits = 5;
    });
    const r = await reserve(t.ctx, u.id, 'openai_api', 'gpt_4');
    let s = joinSettings((await getUser(t.ctx, u.id)).setting, (await getUser(t.ctx, u.id)).counters);
    expect([s.openai_api.total_ask_count, s.openai_api.per_model_ask_count.gpt_4, s.credits]).toEqual([
      1, 0, 4,
    ]);
    await expect(reserve(t.ctx, u.id, 'openai_api', 'gpt_4')).rejects.toMatchObject({
      messageKey: 'errors.noAvailableModelAskCount',
    });
    // The failed reservation charged nothing (the total it took was rolled back).
    s = joinSettings((await getUser(t.ctx, u.id)).setting, (await getUser(t.ctx, u.id)).counters);
    expect(s.openai_api.total_ask_count).toBe(1);
    await r.refund();
    await r.refund();
    s = joinSettings((await getUser(t.ctx, u.id)).setting, (await getUser(t.ctx, u.id)).counters);
    expect([s.openai_api.total_ask_count, s.openai_api.per_model_ask_count.gpt_4, s.credits]).toEqual([
      2, 1, 5,
    ]);
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
      ['errors.noAvailableCredits', (s) => (s.credits = 0)],
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
