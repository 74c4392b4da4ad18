import { describe, expect, it } from 'vitest';
import { adminUser } from '../../shared/fixtures';
import { isExpired, summarizeLimits } from './limits';

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
  });
});
