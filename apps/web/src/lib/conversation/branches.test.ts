import { describe, expect, it } from 'vitest';
import type { ChatMessage } from '@cc/contracts';
import { leafOf, siblingsOf } from './branches';

const m = (id: string, parent: string | null, children: string[] = []): ChatMessage => ({
  id,
  source: 'openai_api',
  role: 'user',
  author_name: null,
  model: null,
  create_time: null,
  parent,
  children,
  content: { content_type: 'text', text: id },
  metadata: {},
});

// q1 → a1, a2 (regenerated); a2 → q2; an edited first question q1b → a3.
const mapping = {
  q1: m('q1', null, ['a1', 'a2']),
  a1: m('a1', 'q1'),
  a2: m('a2', 'q1', ['q2']),
  q2: m('q2', 'a2'),
  q1b: m('q1b', null, ['a3']),
  a3: m('a3', 'q1b'),
};

describe('branches', () => {
  it('lists the versions of a message under the same parent, and of the first questions', () => {
    expect(siblingsOf(mapping, 'a1')).toEqual(['a1', 'a2']);
    expect(siblingsOf(mapping, 'q1')).toEqual(['q1', 'q1b']);
    expect(siblingsOf(mapping, 'q2')).toEqual(['q2']);
  });

  it('follows the latest version down to the end of a branch', () => {
    expect(leafOf(mapping, 'q1')).toBe('q2');
    expect(leafOf(mapping, 'a1')).toBe('a1');
    expect(leafOf(mapping, 'q1b')).toBe('a3');
  });
});
