import { describe, expect, it, vi } from 'vitest';
import type { ChatMessage } from '@cc/contracts';
import { api, chain, web } from '../../test/fixtures';
import {
  appendText,
  canContinue,
  displayTypeOf,
  getCurrentPath,
  groupMessages,
  incompleteReason,
  splitGroup,
  textOf,
} from './history';

describe('getCurrentPath', () => {
  it('follows parents from current_node to the root and reverses', () => {
    const h = chain([web('root', 'system', ''), web('u1', 'user', 'hi'), web('a1', 'assistant', 'hello')]);
    expect(getCurrentPath(h.mapping, h.current_node).map((m) => m.id)).toEqual(['root', 'u1', 'a1']);
  });

  it('stops at a message without content (the empty root of web conversations)', () => {
    const h = chain([web('root', 'system', null), web('u1', 'user', 'hi'), web('a1', 'assistant', 'hello')]);
    expect(getCurrentPath(h.mapping, h.current_node).map((m) => m.id)).toEqual(['u1', 'a1']);
  });

  it('stops at a missing parent and ignores sibling branches', () => {
    const h = chain([web('u1', 'user', 'hi'), web('a1', 'assistant', 'one')]);
    h.mapping.u1 = { ...h.mapping.u1!, parent: 'gone', children: ['a1', 'a2'] };
    h.mapping.a2 = { ...web('a2', 'assistant', 'two'), parent: 'u1' };
    expect(getCurrentPath(h.mapping, 'a1').map((m) => m.id)).toEqual(['u1', 'a1']);
    expect(getCurrentPath(h.mapping, 'a2').map((m) => m.id)).toEqual(['u1', 'a2']);
  });

  it('returns nothing for a null current node and survives a cycle', () => {
    const h = chain([web('u1', 'user', 'hi'), web('a1', 'assistant', 'x')]);
    expect(getCurrentPath(h.mapping, null)).toEqual([]);
    h.mapping.u1 = { ...h.mapping.u1!, parent: 'a1' };
    expect(getCurrentPath(h.mapping, 'a1').map((m) => m.id)).toEqual(['u1', 'a1']);
  });
});

describe('groupMessages', () => {
  it('chains web assistant and tool messages until end_turn, users stand alone, system dropped', () => {
    const messages: ChatMessage[] = [
      web('s', 'system', ''),
      web('u1', 'user', 'plot this'),
      web('c1', 'assistant', null, {
        content: { content_type: 'code', text: 'print(1)' },
        metadata: { end_turn: false, recipient: 'python' },
      }),
      web('o1', 'tool', null, {
        author_name: 'python',
        content: { content_type: 'execution_output', text: '1' },
        metadata: { end_turn: false },
      }),
      web('a1', 'assistant', 'done', { metadata: { end_turn: true, recipient: 'all' } }),
      web('u2', 'user', 'thanks'),
      web('a2', 'assistant', 'welcome'),
    ];
    const groups = groupMessages(messages);
    expect(groups.map((g) => [g.role, g.messages.map((m) => m.id)])).toEqual([
      ['user', ['u1']],
      ['assistant', ['c1', 'o1', 'a1']],
      ['user', ['u2']],
      ['assistant', ['a2']],
    ]);
    expect(groups[1]!.id).toBe('c1');
  });

  it('flushes an unfinished run before a user message and at the end', () => {
    const groups = groupMessages([
      web('a0', 'assistant', 'partial', { metadata: { end_turn: false, recipient: 'all' } }),
      web('u1', 'user', 'q'),
      web('a1', 'assistant', 'streaming', { metadata: { end_turn: null } }),
    ]);
    expect(groups.map((g) => g.messages.map((m) => m.id))).toEqual([['a0'], ['u1'], ['a1']]);
  });

  it('treats a web message without metadata as closing its turn', () => {
    const groups = groupMessages([
      web('a0', 'assistant', 'x', { metadata: { end_turn: false, recipient: 'all' } }),
      web('a1', 'assistant', 'y', { metadata: null }),
      web('a2', 'assistant', 'z', { metadata: null }),
    ]);
    expect(groups.map((g) => g.messages.map((m) => m.id))).toEqual([['a0', 'a1'], ['a2']]);
  });

  it('keeps every API message alone', () => {
    const groups = groupMessages([
      api('u', 'user', 'q'),
      api('a', 'assistant', 'x'),
      api('b', 'assistant', 'y'),
    ]);
    expect(groups.map((g) => g.messages.length)).toEqual([1, 1, 1]);
  });
});

describe('splitGroup', () => {
  it('logs and skips a second user message inside a group', () => {
    const log = vi.fn();
    const buckets = splitGroup(
      { id: 'u1', role: 'user', messages: [web('u1', 'user', 'first'), web('u2', 'user', 'second')] },
      log,
    );
    expect(buckets.map((b) => b.messages.map((m) => m.id))).toEqual([['u1']]);
    expect(log).toHaveBeenCalledWith(expect.stringContaining('second user message'), 'u2');
  });

  it('buckets text, dalle and tool use, merging consecutive ones of a kind', () => {
    const buckets = splitGroup({
      id: 'c1',
      role: 'assistant',
      messages: [
        web('c1', 'assistant', null, {
          content: { content_type: 'code', text: 'a' },
          metadata: { recipient: 'python' },
        }),
        web('o1', 'tool', null, {
          author_name: 'python',
          content: { content_type: 'execution_output', text: '1' },
        }),
        web('c2', 'assistant', null, {
          content: { content_type: 'code', text: 'b' },
          metadata: { recipient: 'python' },
        }),
        web('o2', 'tool', null, {
          author_name: 'python',
          content: { content_type: 'execution_output', text: '2' },
        }),
        web('t1', 'assistant', 'here'),
        web('t2', 'assistant', ' and more'),
        web('d1', 'assistant', null, {
          content: { content_type: 'code', text: '{"prompt":"cat"}' },
          metadata: { recipient: 'dalle.text2im' },
        }),
        web('d2', 'tool', null, {
          author_name: 'dalle.text2im',
          content: { content_type: 'multimodal_text', parts: [{ asset_pointer: 'file-service://f1' }] },
        }),
      ],
    });
    expect(buckets.map((b) => [b.kind, b.messages.map((m) => m.id)])).toEqual([
      ['other', ['c1', 'o1', 'c2', 'o2']],
      ['text', ['t1', 't2']],
      ['other', ['d1']],
      ['dalle', ['d2']],
    ]);
  });

  it('makes every API message its own bucket', () => {
    const buckets = splitGroup({
      id: 'a',
      role: 'assistant',
      messages: [api('a', 'assistant', 'x'), api('b', 'assistant', 'y')],
    });
    expect(buckets).toHaveLength(2);
  });
});

describe('displayTypeOf', () => {
  const bucket = (...messages: ChatMessage[]) => ({ id: messages[0]!.id, kind: 'other' as const, messages });
  it('decides by the first decisive message', () => {
    expect(displayTypeOf(bucket(web('a', 'assistant', 'x')))).toBe('text');
    expect(displayTypeOf(bucket(web('temp_1', 'user', 'x')))).toBe('text');
    expect(
      displayTypeOf(
        bucket(web('u', 'user', null, { content: { content_type: 'multimodal_text', parts: ['x'] } })),
      ),
    ).toBe('multimodal_text');
    expect(
      displayTypeOf(bucket(web('b', 'assistant', 'search("x")', { metadata: { recipient: 'browser' } }))),
    ).toBe('browser');
    expect(displayTypeOf(bucket(web('b', 'tool', 'x', { author_name: 'browser' })))).toBe('browser');
    expect(
      displayTypeOf(bucket(web('d', 'assistant', '{}', { metadata: { recipient: 'dalle.text2im' } }))),
    ).toBe('dalle_prompt');
    expect(displayTypeOf(bucket(web('d', 'tool', 'x', { author_name: 'dalle.text2im' })))).toBe(
      'dalle_result',
    );
    expect(displayTypeOf(bucket(web('m', 'tool', 'x', { author_name: 'myfiles_browser' })))).toBe(
      'myfiles_browser',
    );
    expect(
      displayTypeOf(
        bucket(web('p', 'assistant', '{}', { model: 'gpt_4_plugins', metadata: { recipient: 'todo.add' } })),
      ),
    ).toBe('plugin');
    expect(displayTypeOf(bucket(web('p', 'tool', 'ok', { author_name: 'todo.add' })))).toBe('plugin');
    expect(
      displayTypeOf(
        bucket(
          web('c', 'assistant', null, {
            content: { content_type: 'code', text: 'x' },
            metadata: { recipient: 'python' },
          }),
        ),
        'gpt_4_code_interpreter',
      ),
    ).toBe('code');
    expect(displayTypeOf(bucket(api('x', 'assistant', 'y')))).toBe('text');
  });
});

describe('texts and continue', () => {
  it('gives empty text without content and "name: text" for a system error', () => {
    expect(textOf(web('a', 'assistant', null))).toBe('');
    expect(
      textOf(
        web('e', 'tool', null, {
          content: { content_type: 'system_error', name: 'tool_error', text: 'boom' },
        }),
      ),
    ).toBe('tool_error: boom');
  });

  it('can continue a cut web (max_tokens) or api (length) answer', () => {
    expect(
      canContinue([web('a', 'assistant', 'x', { metadata: { finish_details: { type: 'max_tokens' } } })]),
    ).toBe(true);
    expect(
      canContinue([web('a', 'assistant', 'x', { metadata: { finish_details: { type: 'stop' } } })]),
    ).toBe(false);
    expect(canContinue([api('a', 'assistant', 'x', { metadata: { finish_reason: 'length' } })])).toBe(true);
    expect(canContinue([api('a', 'user', 'x', { metadata: { finish_reason: 'length' } })])).toBe(false);
    expect(canContinue([])).toBe(false);
  });

  it('tells an answer that ended early or at the length limit from a complete one', () => {
    const reason = (...messages: ChatMessage[]) => incompleteReason(groupMessages(messages).at(-1)!);
    // API: finish_reason null is an answer that never reached its end (stopped, cut off).
    expect(reason(api('a', 'assistant', 'x', { metadata: { finish_reason: null } }))).toBe('interrupted');
    expect(reason(api('a', 'assistant', 'x', { metadata: { finish_reason: 'length' } }))).toBe('length');
    expect(reason(api('a', 'assistant', 'x', { metadata: { finish_reason: 'stop' } }))).toBeNull();
    // An older copy without the field, or without metadata, says nothing.
    expect(reason(api('a', 'assistant', 'x', { metadata: {} }))).toBeNull();
    expect(reason(api('a', 'assistant', 'x', { metadata: null }))).toBeNull();
    expect(reason(api('q', 'user', 'x', { metadata: { finish_reason: null } }))).toBeNull();
    // Web: what the upstream recorded, or a status it never finished.
    const w = (metadata: Record<string, unknown>) => web('a', 'assistant', 'x', { metadata });
    expect(
      reason(w({ finish_details: { type: 'interrupted' }, message_status: 'finished_partial_completion' })),
    ).toBe('interrupted');
    expect(reason(w({ end_turn: null, message_status: 'in_progress' }))).toBe('interrupted');
    expect(reason(w({ end_turn: false, finish_details: { type: 'max_tokens' } }))).toBe('length');
    expect(
      reason(
        w({ end_turn: true, finish_details: { type: 'stop' }, message_status: 'finished_successfully' }),
      ),
    ).toBeNull();
    expect(reason(web('a', 'assistant', 'x'))).toBeNull();
    // A tool run cut in its middle: the row's last message decides.
    expect(
      reason(
        w({ end_turn: false, recipient: 'python', message_status: 'finished_successfully' }),
        web('t', 'tool', 'out', { metadata: { end_turn: null, message_status: 'in_progress' } }),
      ),
    ).toBe('interrupted');
  });

  it('appends delta text to the main text only', () => {
    const w = web('a', 'assistant', 'Hel');
    const next = appendText(w, 'lo');
    expect(textOf(next)).toBe('Hello');
    expect(textOf(w)).toBe('Hel');
    expect(textOf(appendText(api('b', 'assistant', 'x'), 'y'))).toBe('xy');
    expect(textOf(appendText(web('c', 'assistant', null), 'new'))).toBe('new');
  });
});
