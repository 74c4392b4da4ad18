import { describe, expect, it } from 'vitest';
import type { UserRead } from '@cc/contracts';
import { normalizeCount, remainingForModel } from './quota';

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
        openai_web: { per_model_ask_count: { gpt_4: 3, gpt_3_5: -1 } },
        openai_api: { per_model_ask_count: {} },
      },
    } as unknown as UserRead;
    expect(remainingForModel(user, 'openai_web', 'gpt_4')).toBe(3);
    expect(remainingForModel(user, 'openai_web', 'gpt_3_5')).toBe('unlimited');
    expect(remainingForModel(user, 'openai_web', 'gpt_4_browsing')).toBe('unlimited');
    expect(remainingForModel(user, 'openai_api', 'gpt_4')).toBe('unlimited');
  });
});
