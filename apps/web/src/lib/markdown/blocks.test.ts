import { describe, expect, it } from 'vitest';
import { IncrementalBlockSplitter, splitBlocks } from './blocks';

describe('splitBlocks', () => {
  it('splits at blank lines', () => {
    expect(splitBlocks('# T\n\npara one\nline\n\npara two')).toEqual([
      '# T\n\n',
      'para one\nline\n\n',
      'para two',
    ]);
  });

  it('never splits inside a code fence or a math block', () => {
    const text = '```py\na = 1\n\nb = 2\n```\n\n$$\nx\n\ny\n$$\n\n\\[\na\n\nb\n\\]\n\nend';
    expect(splitBlocks(text)).toEqual([
      '```py\na = 1\n\nb = 2\n```\n\n',
      '$$\nx\n\ny\n$$\n\n',
      '\\[\na\n\nb\n\\]\n\n',
      'end',
    ]);
  });

  it('keeps indented continuations and list items with what precedes them', () => {
    expect(splitBlocks('- a\n\n  more of a\n\n- b\n\nafter')).toEqual([
      '- a\n\n  more of a\n\n- b\n\n',
      'after',
    ]);
  });

  it('joins back to the original text', () => {
    const text = 'a\n\n```\nx\n\n```\n\nb\n\n\n\nc\n';
    expect(splitBlocks(text).join('')).toBe(text);
  });
});

describe('IncrementalBlockSplitter', () => {
  const corpus =
    '# Title\n\nSome *text* here.\n\n```js\nconst a = 1;\n\nconsole.log(a);\n```\n\n- one\n- two\n\n$$\nx^2\n$$\n\nThe end.\n';

  it('gives the same blocks as a full split, whatever the chunking', () => {
    for (const size of [1, 3, 7, 50]) {
      const splitter = new IncrementalBlockSplitter();
      let result = splitter.update('');
      for (let i = size; i < corpus.length + size; i += size) result = splitter.update(corpus.slice(0, i));
      expect([...result.finished, result.tail]).toEqual(splitBlocks(corpus));
    }
  });

  it('keeps finished blocks by identity and restarts on a non-extending text', () => {
    const splitter = new IncrementalBlockSplitter();
    const first = splitter.update('a\n\nb\n\nc');
    const second = splitter.update('a\n\nb\n\ncd');
    expect(second.finished).toBe(first.finished);
    expect(second.tail).toBe('cd');
    expect(splitter.update('x\n\ny').finished).toEqual(['x\n\n']);
  });

  it('scans only the unfinished tail: the work per chunk does not grow with the text', () => {
    const splitter = new IncrementalBlockSplitter();
    let text = '';
    const tails: number[] = [];
    for (let i = 0; i < 2000; i++) {
      text += i % 10 === 9 ? 'word.\n\n' : 'word ';
      tails.push(splitter.update(text).tail.length);
    }
    expect(text.length).toBeGreaterThan(10_000);
    expect(Math.max(...tails)).toBeLessThan(60);
  });
});
