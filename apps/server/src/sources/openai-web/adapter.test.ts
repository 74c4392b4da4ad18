import { afterEach, describe, expect, it } from 'vitest';
import { closeScripted, readAsk, scriptedUpstream } from '../../test/scripted-upstream';
import { openaiWebAdapter } from './adapter';

afterEach(closeScripted);

/** One event of the web backend: a whole snapshot of message `id` with these parts. */
const snapshot = (id: string, text: string, extra: Record<string, unknown> = {}) =>
  `data: ${JSON.stringify({
    conversation_id: 'conv-1',
    message: {
      id,
      author: { role: 'assistant' },
      content: { content_type: 'text', parts: [text] },
      status: 'in_progress',
    },
    ...extra,
  })}\n\n`;

describe('the web source streaming an answer', () => {
  it('of several snapshots of one message in one read relays the last; other events keep their order', async () => {
    const up = await scriptedUpstream([
      snapshot('m1', 'a') + snapshot('m1', 'ab') + snapshot('m1', 'abc'),
      snapshot('m1', 'abcd') +
        `data: ${JSON.stringify({ type: 'title_generation', title: 'T' })}\n\n` +
        snapshot('m2', 'x') +
        snapshot('m2', 'xy'),
      'data: [DONE]\n\n',
    ]);
    const { events, failure } = await readAsk(openaiWebAdapter, up, {
      conversationId: null,
      model: 'gpt_3_5',
    });
    expect(failure).toBeUndefined();
    const shown = events.map((e) =>
      e.type === 'message'
        ? `${e.message.id}:${(e.message.content as { parts: string[] }).parts.join('')}`
        : e.type === 'conversation'
          ? `conversation:${e.conversationId}`
          : e.type,
    );
    expect(shown).toEqual(['conversation:conv-1', 'm1:abc', 'm1:abcd', 'title', 'm2:xy', 'usage']);
  });
});
