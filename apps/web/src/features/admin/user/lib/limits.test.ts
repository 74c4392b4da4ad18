import { describe, expect, it } from 'vitest';
import { adminUser } from '../../shared/fixtures';
import { chatStatusRank, formatRemaining, isExpired, remainingScore, summarizeLimits } from './limits';

const NOW = Date.parse('2026-06-01T00:00:00Z');

describe('summarizeLimits', () => {
  it('summarises both sources with per-model counts of the available models only', () => {
    const [web, api] = summarizeLimits(adminUser().setting, NOW);
    expect(web).toMatchObject({
      source: 'openai_web',
      allowed: true,
      expired: false,
      totalAsks: 100,
      maxConversations: 10,
      rateLimitCount: 1,
      timeSlotCount: 0,
    });
    // gpt_3_5 has no count: unlimited; gpt_4_dalle is not available: not listed.
    expect(web?.perModel).toContainEqual({ model: 'gpt_3_5', remaining: 'unlimited' });
    expect(web?.perModel).toContainEqual({ model: 'gpt_4', remaining: 20 });
    expect(web?.perModel.map((m) => m.model)).not.toContain('gpt_4_dalle');
    expect(api?.source).toBe('openai_api');
  });

  it('shows -1 as unlimited and marks a past valid_until as expired', () => {
    const user = adminUser();
    user.setting.openai_web.total_ask_count = -1;
    user.setting.openai_web.max_conv_count = -1;
    user.setting.openai_web.per_model_ask_count = { gpt_4: -1 };
    user.setting.openai_api.valid_until = '2026-05-01T00:00:00Z';
    const [web, api] = summarizeLimits(user.setting, NOW);
    expect(web?.totalAsks).toBe('unlimited');
    expect(web?.maxConversations).toBe('unlimited');
    expect(web?.perModel.find((m) => m.model === 'gpt_4')?.remaining).toBe('unlimited');
    expect(api?.expired).toBe(true);
    expect(isExpired(null, NOW)).toBe(false);
    expect(isExpired('2026-07-01T00:00:00Z', NOW)).toBe(false);
    expect(formatRemaining('unlimited', '∞')).toBe('∞');
    expect(formatRemaining(3, '∞')).toBe('3');
  });
});

describe('remainingScore', () => {
  it('counts the smaller of total and per-model sum; disallowed or expired sources count 0', () => {
    const user = adminUser();
    user.setting.openai_web.available_models = ['gpt_4'];
    user.setting.openai_web.per_model_ask_count = { gpt_4: 5 };
    user.setting.openai_web.total_ask_count = 100;
    user.setting.openai_api.allow_to_use = false;
    expect(remainingScore(user.setting, NOW)).toBe(5);
    user.setting.openai_web.total_ask_count = 2;
    expect(remainingScore(user.setting, NOW)).toBe(2);
    user.setting.openai_web.valid_until = '2020-01-01T00:00:00Z';
    expect(remainingScore(user.setting, NOW)).toBe(0);
    user.setting.openai_api.allow_to_use = true;
    user.setting.openai_api.total_ask_count = -1;
    user.setting.openai_api.per_model_ask_count = {};
    expect(remainingScore(user.setting, NOW)).toBe(Infinity);
  });

  it('ranks asking above queueing above idling', () => {
    expect(chatStatusRank('asking')).toBeGreaterThan(chatStatusRank('queueing'));
    expect(chatStatusRank('queueing')).toBeGreaterThan(chatStatusRank('idling'));
  });
});
