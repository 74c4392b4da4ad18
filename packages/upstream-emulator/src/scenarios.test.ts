import { describe, expect, it } from 'vitest';
import { SCENARIOS } from './index';
import { parsePrompt } from './scenarios';
import { chunkText, longText, titleFromPrompt } from './text';

describe('prompt parsing', () => {
  it('reads directives and fault tokens', () => {
    expect(parsePrompt('#long 42 please')).toMatchObject({
      directive: 'long',
      argument: '42 please',
      fault: null,
    });
    expect(parsePrompt('hello #fault:disconnect=3 world')).toMatchObject({
      directive: null,
      clean: 'hello   world',
      fault: { disconnectAfterChunks: 3 },
    });
    expect(parsePrompt('#fault:stall=2 #fault:malformed=1 #code').fault).toEqual({
      stallAfterChunks: 2,
      malformedLineAfterChunks: 1,
    });
    expect(parsePrompt('#fault:status=429 #browse x')).toMatchObject({
      directive: 'browse',
      fault: { status: 429 },
    });
    expect(parsePrompt('#fault:error').fault?.errorInStream).toContain('Something went wrong');
    expect(parsePrompt('#unknown thing').directive).toBeNull();
    expect(parsePrompt('talk about #code later').directive).toBeNull();
  });
});

describe('text helpers', () => {
  it('chunks text without splitting [DONE] or surrogate pairs', () => {
    const text = 'abcdefg[DONE]hij 😀😀😀';
    for (const size of [1, 2, 3, 4, 5, 8]) {
      const chunks = chunkText(text, size);
      expect(chunks.join('')).toBe(text);
      expect(chunks.some((c) => c.includes('[DONE]'))).toBe(true);
      expect(chunks.every((c) => !/[\uD800-\uDBFF]$/.test(c))).toBe(true);
    }
  });

  it('makes titles and long texts deterministically', () => {
    expect(titleFromPrompt('  how do I *bake* bread? #fault:stall=1')).toBe('How Do I Bake Bread');
    expect(titleFromPrompt('#fault:error')).toBe('New chat');
    expect(longText(77, 5).split(/\s+/)).toHaveLength(77);
    expect(longText(77, 5)).toBe(longText(77, 5));
  });

  it('documents every scenario', () => {
    const triggers = SCENARIOS.map((s) => s.trigger).join(' ');
    for (const t of [
      '#long',
      '#done',
      '#code',
      '#browse',
      '#dalle',
      '#plugin',
      '#error',
      '#length',
      'markdown',
    ]) {
      expect(triggers).toContain(t);
    }
  });
});
