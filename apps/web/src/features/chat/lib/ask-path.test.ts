import { describe, expect, it } from 'vitest';
import type { ChatMessage, ConversationHistory } from '@cc/contracts';
import { getCurrentPath } from '../../../lib/conversation/history';
import { web } from '../../../test/fixtures';
import { askBranchPoint, withAnswer } from './ask-path';

/** q1 → a1 (first version) and a2 (regenerated, being written): the current node is a2. */
function history(): ConversationHistory {
  const messages: ChatMessage[] = [
    web('q1', 'user', 'question', { children: ['a1', 'a2'] }),
    web('a1', 'assistant', 'first version', { parent: 'q1' }),
    web('a2', 'assistant', 'second version so far', { parent: 'q1' }),
  ];
  return {
    _id: 'c1',
    source: 'openai_web',
    title: null,
    create_time: '2026-01-01T00:00:00Z',
    update_time: '2026-01-01T00:00:00Z',
    mapping: Object.fromEntries(messages.map((m) => [m.id, m])),
    current_node: 'a2',
    current_model: 'gpt_4',
    metadata: null,
  };
}

describe('where the answer being received hangs', () => {
  it('at the parent its first message names, when the conversation holds it', () => {
    const h = history();
    expect(askBranchPoint(h, [web('a2', 'assistant', 'second version and more', { parent: 'q1' })])).toBe(
      'q1',
    );
    // Our own question not echoed yet (a temporary bubble): not known yet.
    expect(askBranchPoint(h, [web('temp_user_1', 'user', 'hi', { parent: 'a2' })])).toBeUndefined();
    expect(askBranchPoint(h, [])).toBeUndefined();
    // A parent this page does not have, or none: not known here.
    expect(askBranchPoint(h, [web('q9', 'user', 'later', { parent: 'zz' })])).toBeUndefined();
    expect(askBranchPoint(h, [web('q9', 'user', 'first', { parent: null })])).toBeUndefined();
    expect(askBranchPoint(undefined, [web('a2', 'assistant', 'x', { parent: 'q1' })])).toBeUndefined();
  });

  it('the stored path to there, then the answer: a stored copy of the answer is not shown twice', () => {
    const h = history();
    const live = web('a2', 'assistant', 'second version and more', { parent: 'q1' });
    const shown = withAnswer(getCurrentPath(h.mapping, askBranchPoint(h, [live])), [live]);
    expect(shown.map((m) => [m.id, m.content])).toEqual([
      ['q1', { content_type: 'text', parts: ['question'] }],
      ['a2', { content_type: 'text', parts: ['second version and more'] }],
    ]);
    // The whole stored path with the answer's own messages left out (where it hangs is not known).
    expect(withAnswer(getCurrentPath(h.mapping, 'a2'), [live]).map((m) => m.id)).toEqual(['q1', 'a2']);
    expect(withAnswer(getCurrentPath(h.mapping, 'a2'), []).map((m) => m.id)).toEqual(['q1', 'a2']);
  });
});
