import { beforeEach, describe, expect, it, vi } from 'vitest';
import { Config } from '@cc/contracts';

/** The module afresh: which encodings are built is its state. */
async function tokens() {
  return import('./tokens');
}

describe('warming the tokenizers', () => {
  beforeEach(() => {
    vi.resetModules();
  });

  it("builds only the encodings the configuration's models use; another is built when an ask needs it", async () => {
    const { builtEncodings, configuredModels, countTokens, warmTokenizers } = await tokens();
    expect(builtEncodings()).toEqual([]);
    warmTokenizers(configuredModels(Config.parse({})));
    // Every default model name and code (GPT-3.5, GPT-4 and their web codes) counts in cl100k_base.
    expect(builtEncodings()).toEqual(['cl100k_base']);
    expect(countTokens('gpt-4o', '巴黎是法国的首都。')).toBe(7);
    expect(builtEncodings()).toEqual(['cl100k_base', 'o200k_base']);
  });

  it('a model mapped to GPT-4o or later brings its encoding in', async () => {
    const { builtEncodings, configuredModels, warmTokenizers } = await tokens();
    expect(builtEncodings()).toEqual([]);
    const config = Config.parse({ openai_api: { model_code_mapping: { gpt_4: 'gpt-4o-mini' } } });
    expect(configuredModels(config)).toContain('gpt-4o-mini');
    warmTokenizers(configuredModels(config));
    expect(builtEncodings()).toEqual(['cl100k_base', 'o200k_base']);
  });
});
