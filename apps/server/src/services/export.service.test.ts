import { describe, expect, it } from 'vitest';
import { exportFileName } from './export.service';

describe('exportFileName', () => {
  it('turns line breaks and tabs into spaces and drops other control and invisible characters', () => {
    expect(exportFileName('Plan\nfor\tQ3', 'md')).toBe('Plan for Q3.md');
    expect(exportFileName('in\u202Evoice\u0000 draft\u200B', 'json')).toBe('invoice draft.json');
  });

  it('replaces path and reserved characters and falls back to a plain name', () => {
    expect(exportFileName('a/b\\c:d*e?"f"<g>|h', 'md')).toBe('a b c d e f g h.md');
    expect(exportFileName('\u200B\u0001 ', 'md')).toBe('conversation.md');
    expect(exportFileName(null, 'json')).toBe('conversation.json');
  });

  it('keeps at most 80 characters', () => {
    expect(exportFileName('x'.repeat(200), 'md')).toBe(`${'x'.repeat(80)}.md`);
  });
});
