import { describe, expect, it } from 'vitest';
import { countTokens, estimateUsage } from './tokens';

// Counts as OpenAI's own tokenizer (tiktoken) gives them for each encoding.
describe('token counts', () => {
  it('GPT-3.5 and GPT-4 count in cl100k_base, GPT-4o and later in o200k_base', () => {
    const chinese = '巴黎是法国的首都。';
    expect(countTokens('gpt-3.5-turbo', chinese)).toBe(11);
    expect(countTokens('gpt_4', chinese)).toBe(11);
    expect(countTokens('gpt-4o', chinese)).toBe(7);
    expect(countTokens('o3-mini', chinese)).toBe(7);
    expect(countTokens('gpt-4o', 'The quick brown fox jumps over the lazy dog.')).toBe(10);
    expect(countTokens('gpt_3_5', '')).toBe(0);
  });

  it('text that reads like a special token is counted as text, not refused', () => {
    const text = 'what does <|endoftext|> mean?';
    expect(countTokens('gpt-3.5-turbo', text)).toBe(10);
    expect(countTokens('gpt-4o', text)).toBe(11);
  });

  it('an estimate counts what was sent and the answer, and says it is one', () => {
    expect(estimateUsage('gpt-4o', ['hello world', '巴黎是法国的首都。'], 'hello world')).toEqual({
      inputTokens: 9,
      outputTokens: 2,
      estimated: true,
    });
  });
});
