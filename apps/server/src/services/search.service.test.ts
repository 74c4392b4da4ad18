import { describe, expect, it } from 'vitest';
import { snippetOf } from './search.service';

const shown = (text: string, q: string) => {
  const cut = snippetOf(text, q)!;
  return { snippet: cut.snippet, marked: cut.highlights.map(([s, e]) => cut.snippet.slice(s, e)) };
};

describe('snippetOf', () => {
  it("shows an answer's text without markdown's marks, the match marked where it is", () => {
    const answer =
      '## Answer\n\nYou asked: "x".\n\n- **Deterministic** replies\n- see [the docs](https://example.com/d)\n\n' +
      '```ts\nconst `x` = 1;\n```\n> quoted *idea*';
    expect(shown(answer, 'deterministic')).toEqual({
      snippet: 'Answer You asked: "x". Deterministic replies see the docs const x = 1; quoted idea',
      marked: ['Deterministic'],
    });
  });

  it('finds a query written with the marks in the text as it is', () => {
    expect(shown('a **bold** move', '**bold**')).toEqual({
      snippet: 'a **bold** move',
      marked: ['**bold**'],
    });
    expect(snippetOf('plain words', 'absent')).toBeNull();
  });

  it('keeps marks that are text: a star between words, snake_case, a lone backtick', () => {
    expect(shown('2 * 3 * 4 and snake_case_name and a ` tick', 'snake')).toEqual({
      snippet: '2 * 3 * 4 and snake_case_name and a ` tick',
      marked: ['snake'],
    });
  });
});
