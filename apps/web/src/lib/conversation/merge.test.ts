import { describe, expect, it } from 'vitest';
import { chain, web } from '../../test/fixtures';
import { getCurrentPath } from './history';
import { mergeAskIntoHistory } from './merge';

describe('mergeAskIntoHistory', () => {
  it('appends the new messages under the current node and moves it', () => {
    const history = chain([web('u1', 'user', 'a'), web('a1', 'assistant', 'b')]);
    const merged = mergeAskIntoHistory(
      history,
      [{ ...web('u2', 'user', 'c'), parent: null }, web('a2', 'assistant', 'd')],
      {
        conversationId: 'conv-1',
        source: 'openai_web',
        model: 'gpt_4',
        title: null,
      },
    );
    expect(merged.current_node).toBe('a2');
    expect(merged.mapping.a1!.children).toEqual(['u2']);
    expect(getCurrentPath(merged.mapping, merged.current_node).map((m) => m.id)).toEqual([
      'u1',
      'a1',
      'u2',
      'a2',
    ]);
    expect(history.mapping.a1!.children).toEqual([]);
  });

  it('hangs an edit of the first question at the top, beside it, not under the current answer', () => {
    const history = chain([web('u1', 'user', 'a'), web('a1', 'assistant', 'b')]);
    const merged = mergeAskIntoHistory(
      history,
      [
        { ...web('u2', 'user', 'edited'), parent: null },
        { ...web('a2', 'assistant', 'c'), parent: 'u2' },
      ],
      { conversationId: 'conv-1', source: 'openai_api', model: 'gpt_3_5', title: null, parent: null },
    );
    expect(merged.current_node).toBe('a2');
    expect(merged.mapping.u2!.parent).toBeNull();
    expect(merged.mapping.a1!.children).toEqual([]);
    expect(getCurrentPath(merged.mapping, merged.current_node).map((m) => m.id)).toEqual(['u2', 'a2']);
  });

  it('starts a history for a new conversation', () => {
    const merged = mergeAskIntoHistory(undefined, [web('u1', 'user', 'a'), web('a1', 'assistant', 'b')], {
      conversationId: 'new-id',
      source: 'openai_api',
      model: 'gpt_3_5',
      title: 'T',
      pluginIds: ['p1'],
    });
    expect(merged._id).toBe('new-id');
    expect(merged.title).toBe('T');
    expect(merged.metadata?.plugin_ids).toEqual(['p1']);
    expect(getCurrentPath(merged.mapping, merged.current_node).map((m) => m.id)).toEqual(['u1', 'a1']);
  });
});
