import { describe, expect, it } from 'vitest';
import { cleanTitle, clip, hasInvisible, mixesScripts, oneLine, withoutInvisible } from './text';

describe('invisible characters', () => {
  it('finds control and invisible format characters and nothing else', () => {
    for (const text of [
      'a\u0000b',
      'tab\there',
      'line\nbreak',
      'x\u202Egnp.exe',
      'zero\u200Bwidth',
      '\uFEFFbom',
      'half \uD83D of an emoji',
    ]) {
      expect(hasInvisible(text), JSON.stringify(text)).toBe(true);
    }
    for (const text of ['plain', '中文 名字', 'émoji 🎉', 'a b', '']) {
      expect(hasInvisible(text), text).toBe(false);
    }
  });

  it('drops every one of them and keeps the rest', () => {
    expect(withoutInvisible('in\u202Evoice\u200B.pdf\u0007')).toBe('invoice.pdf');
    expect(withoutInvisible('报告 2026.txt')).toBe('报告 2026.txt');
    // Stateless across calls (a global regex's lastIndex must not leak into hasInvisible).
    expect(hasInvisible('a\u200Bb')).toBe(true);
    expect(hasInvisible('a\u200Bb')).toBe(true);
  });

  it('puts a text on one line: breaks and tabs become one space, invisible characters go, the ends are trimmed', () => {
    expect(oneLine(' first\nsecond\t\tthird \u200B\u202E ')).toBe('first second third');
    expect(oneLine('\u0000\u200B')).toBe('');
    expect(cleanTitle('\u200B \n')).toBeNull();
    expect(cleanTitle('Plan\r\nfor 2027')).toBe('Plan for 2027');
  });
});

describe('clip', () => {
  it('cuts to at most max units, never through an emoji', () => {
    expect(clip('abc', 3)).toBe('abc');
    expect(clip('abcd', 3)).toBe('abc');
    expect(clip('ab😀c', 3)).toBe('ab');
    expect(clip('ab😀c', 4)).toBe('ab😀');
    expect(() => encodeURIComponent(clip(`${'a'.repeat(79)}😀b`, 80))).not.toThrow();
  });
});

describe('mixed scripts', () => {
  it('finds Latin mixed with Cyrillic, Greek or a rarer look-alike script', () => {
    for (const text of ['pаypal', 'Αlice', 'иванivan', 'ᎪBC', 'ꓮdmin', 'αβγабв']) {
      expect(mixesScripts(text), text).toBe(true);
    }
  });

  it('lets one script be, and Latin with Han, kana, Bopomofo or Hangul, with digits and punctuation', () => {
    for (const text of [
      'paypal',
      'иван',
      'Ελένη',
      '张三',
      '张三_zhang3',
      '田中たろう',
      'タナカ-ー',
      'ㄅ李',
      '김민수',
      'a1-_.@',
      '',
    ]) {
      expect(mixesScripts(text), text).toBe(false);
    }
    // Kana with Hangul is no one language's writing.
    expect(mixesScripts('たろう김')).toBe(true);
  });
});
