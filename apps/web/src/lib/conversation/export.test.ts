import { describe, expect, it } from 'vitest';
import { chain, web } from '../../test/fixtures';
import { conversationToMarkdown, safeFileName } from './export';

const t = (key: string) => key.split('.').pop() ?? key;

describe('conversationToMarkdown', () => {
  it('exports the current path with turns, code and output, without citation HTML', () => {
    const history = chain([
      web('root', 'system', null),
      web('u1', 'user', 'Plot a sine\nplease'),
      web('c1', 'assistant', null, {
        content: { content_type: 'code', text: 'print(1)' },
        metadata: { end_turn: false, recipient: 'python' },
      }),
      web('o1', 'tool', null, {
        author_name: 'python',
        content: { content_type: 'execution_output', text: '1' },
        metadata: { end_turn: false },
      }),
      web('a1', 'assistant', 'Done【1†source】', {
        metadata: {
          end_turn: true,
          recipient: 'all',
          citations: [{ start_ix: 4, end_ix: 14, metadata: { url: 'https://x' } }],
        },
      }),
    ]);
    history.title = 'Sine';
    const md = conversationToMarkdown(history, t, 'en-US');
    expect(md.startsWith('# Sine\n')).toBe(true);
    expect(md).toContain('## [1] Plot a sine');
    expect(md).toContain('```python\nprint(1)\n```');
    expect(md).toContain('```\n1\n```');
    expect(md).toContain('Done【1†source】');
    expect(md).not.toContain('<span');
  });
});

describe('safeFileName', () => {
  it('removes path and reserved characters', () => {
    expect(safeFileName('../a/b:c*?"<>|')).toBe('.. a b c');
    expect(safeFileName('   ')).toBe('conversation');
  });
});
