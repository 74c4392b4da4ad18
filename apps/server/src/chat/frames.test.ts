import type { ApiChatMessage, ChatMessage } from '@cc/contracts';
import { describe, expect, it } from 'vitest';
import { FrameEncoder } from './frames';

function answer(text: string, metadata: Record<string, unknown> = {}): ApiChatMessage {
  return {
    id: 'm1',
    source: 'openai_api',
    role: 'assistant',
    author_name: null,
    model: 'gpt_3_5',
    create_time: '2026-01-01T00:00:00Z',
    parent: 'q1',
    children: [],
    content: { content_type: 'text', text },
    metadata,
  };
}

/** What each frame is: a delta (its appended text) or a whole message. */
function kinds(encoder: FrameEncoder, messages: ChatMessage[]): string[] {
  return messages.map((m) => {
    const frame = encoder.encode('conv', m);
    if (frame.type !== 'message') throw new Error('not a message frame');
    return frame.delta ? `+${frame.delta.append}` : 'whole';
  });
}

describe('delta frames', () => {
  it('text that only grows goes as appends; any other change sends the whole message', () => {
    const encoder = new FrameEncoder('delta');
    const finished = { finish_reason: 'stop' };
    expect(
      kinds(encoder, [
        answer('Hel'),
        answer('Hello'),
        answer('Hello, world'),
        answer('Hello, world!', finished),
        answer('Hello, world!!', { finish_reason: 'stop' }),
        { ...answer('Hello, world!!!', finished), parent: 'q2' },
        { ...answer('Hello, world!!!!', finished), parent: 'q2', author_name: 'bot' },
        answer('Bye', finished),
      ]),
    ).toEqual(['whole', '+lo', '+, world', 'whole', '+!', 'whole', 'whole', 'whole']);
  });

  it('a change made in place to an object the last frame carried still sends the whole message', () => {
    const encoder = new FrameEncoder('delta');
    const metadata: Record<string, unknown> = { finish_reason: null };
    expect(kinds(encoder, [answer('a', metadata), answer('ab', metadata)])).toEqual(['whole', '+b']);
    metadata.finish_reason = 'stop';
    expect(kinds(encoder, [answer('abc', metadata)])).toEqual(['whole']);
  });

  it('a field that appears or goes away sends the whole message', () => {
    const encoder = new FrameEncoder('delta');
    const withStatus = { ...answer('ab'), status: 'in_progress' } as unknown as ChatMessage;
    expect(kinds(encoder, [answer('a'), withStatus, answer('abc')])).toEqual(['whole', 'whole', 'whole']);
  });

  it('content other than plain text always goes whole; the end resends the messages whose last frame was a delta', () => {
    const encoder = new FrameEncoder('delta');
    const code = (text: string) =>
      ({
        ...answer(''),
        id: 'm2',
        content: { content_type: 'code', language: 'py', text },
      }) as unknown as ChatMessage;
    expect(kinds(encoder, [code('a'), code('ab'), answer('x'), answer('xy')])).toEqual([
      'whole',
      'whole',
      'whole',
      '+y',
    ]);
    expect(encoder.pendingFull()).toEqual(['m1']);
  });

  it('full mode sends every snapshot whole', () => {
    const encoder = new FrameEncoder('full');
    expect(kinds(encoder, [answer('a'), answer('ab')])).toEqual(['whole', 'whole']);
  });
});
