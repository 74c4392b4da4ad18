import { describe, expect, it } from 'vitest';
import { replaceMathDelimiters } from './math';

describe('replaceMathDelimiters', () => {
  it('converts bracket delimiters to dollar delimiters outside code', () => {
    expect(replaceMathDelimiters('a \\( x^2 \\) b')).toBe('a $x^2$ b');
    expect(replaceMathDelimiters('see \\[ E=mc^2 \\] now')).toBe('see \n$$\nE=mc^2\n$$\n now');
  });

  it('leaves code untouched', () => {
    const fenced = '```\n\\(x\\)\n```';
    expect(replaceMathDelimiters(fenced)).toBe(fenced);
    expect(replaceMathDelimiters('`\\(x\\)` and \\(y\\)')).toBe('`\\(x\\)` and $y$');
  });

  it('a fence closes open inline code', () => {
    expect(replaceMathDelimiters('`open ```\n\\(x\\)\n``` \\(y\\)')).toBe('`open ```\n\\(x\\)\n``` $y$');
  });

  it('leaves an unclosed marker as is and collapses blank-line runs', () => {
    expect(replaceMathDelimiters('\\( no end')).toBe('\\( no end');
    expect(replaceMathDelimiters('a\n\n\n\nb')).toBe('a\n\nb');
  });
});
