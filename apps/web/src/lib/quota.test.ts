import { describe, expect, it } from 'vitest';
import type { UserRead } from '@cc/contracts';
import { minRemaining, normalizeCount, remainingForModel } from './quota';

describe('quota', () => {
  it('shows -1 and missing as unlimited', () => {
    expect(normalizeCount(-1)).toBe('unlimited');
    expect(normalizeCount(undefined)).toBe('unlimited');
    expect(normalizeCount(0)).toBe(0);
    expect(normalizeCount(12)).toBe(12);
  });

  it('reads the per-model count of a source', () => {
    const user = {
      setting: {
        openai_web: { total_ask_count: -1, per_model_ask_count: { gpt_4: 3, gpt_3_5: -1 } },
        openai_api: { total_ask_count: -1, per_model_ask_count: {} },
      },
    } as unknown as UserRead;
    expect(remainingForModel(user, 'openai_web', 'gpt_4')).toBe(3);
    expect(remainingForModel(user, 'openai_web', 'gpt_3_5')).toBe('unlimited');
    expect(remainingForModel(user, 'openai_web', 'gpt_4_browsing')).toBe('unlimited');
    expect(remainingForModel(user, 'openai_api', 'gpt_4')).toBe('unlimited');
  });

  it('shows the limit that binds: the smaller of the total and the per-model count', () => {
    const user = (total: number, perModel: Record<string, number>) =>
      ({
        setting: {
          openai_web: { total_ask_count: total, per_model_ask_count: perModel },
          openai_api: { total_ask_count: -1, per_model_ask_count: {} },
        },
      }) as unknown as UserRead;
    // A total of 0 leaves no ask, whatever the model's own count (the header used to say "unlimited").
    expect(remainingForModel(user(0, {}), 'openai_web', 'gpt_4')).toBe(0);
    expect(remainingForModel(user(0, { gpt_4: -1 }), 'openai_web', 'gpt_4')).toBe(0);
    expect(remainingForModel(user(0, { gpt_4: 5 }), 'openai_web', 'gpt_4')).toBe(0);
    expect(remainingForModel(user(7, { gpt_4: 5 }), 'openai_web', 'gpt_4')).toBe(5);
    expect(remainingForModel(user(3, { gpt_4: 5 }), 'openai_web', 'gpt_4')).toBe(3);
    expect(remainingForModel(user(3, {}), 'openai_web', 'gpt_3_5')).toBe(3);
    expect(remainingForModel(user(-1, { gpt_4: 5 }), 'openai_web', 'gpt_4')).toBe(5);
    expect(remainingForModel(user(-1, {}), 'openai_web', 'gpt_4')).toBe('unlimited');
    expect(remainingForModel(undefined, 'openai_web', 'gpt_4')).toBe('unlimited');
  });

  it('takes the smaller of two limits, unlimited only when both are', () => {
    expect(minRemaining('unlimited', 'unlimited')).toBe('unlimited');
    expect(minRemaining('unlimited', 4)).toBe(4);
    expect(minRemaining(4, 'unlimited')).toBe(4);
    expect(minRemaining(4, 2)).toBe(2);
  });
});
