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

/** What each frame is: a delta (its appended text, then the fields it sets as JSON) or a whole message. */
function kinds(encoder: FrameEncoder, messages: ChatMessage[]): string[] {
  return messages.map((m) => {
    const frame = encoder.encode('conv', m);
    if (frame.type !== 'message') throw new Error('not a message frame');
    if (!frame.delta) return 'whole';
    return `+${frame.delta.append}${frame.delta.set ? ` ${JSON.stringify(frame.delta.set)}` : ''}`;
  });
}

describe('delta frames', () => {
  it('text that only grows goes as appends, other changed fields with it; replaced text sends the whole message', () => {
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
    ).toEqual([
      'whole',
      '+lo',
      '+, world',
      '+! {"metadata":{"finish_reason":"stop"}}',
      '+!',
      '+! {"parent":"q2"}',
      '+! {"author_name":"bot"}',
      'whole',
    ]);
  });

  it('a change made in place to an object the last frame carried still shows', () => {
    const encoder = new FrameEncoder('delta');
    const metadata: Record<string, unknown> = { finish_reason: null };
    expect(kinds(encoder, [answer('a', metadata), answer('ab', metadata)])).toEqual(['whole', '+b']);
    metadata.finish_reason = 'stop';
    expect(kinds(encoder, [answer('abc', metadata), answer('abcd', metadata)])).toEqual([
      '+c {"metadata":{"finish_reason":"stop"}}',
      '+d',
    ]);
  });

  it('arrays, flat and nested objects changed in place, or a field turning into an object, are set again', () => {
    const encoder = new FrameEncoder('delta');
    const children: string[] = [];
    const metadata: Record<string, unknown> = { finish_reason: null, citations: [{ start: 1 }] };
    const at = (text: string, extra: Partial<ApiChatMessage> = {}) => ({
      ...answer(text, metadata),
      children,
      ...extra,
    });
    expect(kinds(encoder, [at('a'), at('ab')])).toEqual(['whole', '+b']);
    children.push('c1');
    expect(kinds(encoder, [at('abc'), at('abcd')])).toEqual(['+c {"children":["c1"]}', '+d']);
    (metadata.citations as { start: number }[])[0]!.start = 2;
    expect(kinds(encoder, [at('abcde'), at('abcdef')])).toEqual([
      '+e {"metadata":{"finish_reason":null,"citations":[{"start":2}]}}',
      '+f',
    ]);
    expect(
      kinds(encoder, [
        at('abcdefg', { author_name: { name: 'x' } as unknown as null }),
        at('abcdefgh', { author_name: { name: 'x' } as unknown as null }),
        at('abcdefghi'),
        at('abcdefghij', {
          metadata: { finish_reason: null, citations: [{ start: 2 }] } as ApiChatMessage['metadata'],
        }),
      ]),
    ).toEqual(['+g {"author_name":{"name":"x"}}', '+h', '+i {"author_name":null}', '+j']);
  });

  it("takes the source's appended text as the delta when the lengths agree, without reading the message's text", () => {
    const encoder = new FrameEncoder('delta');
    const at = (text: string, appended?: string) => {
      const frame = encoder.encode('conv', answer(text), appended);
      if (frame.type !== 'message') throw new Error('not a message frame');
      return frame.delta ? `+${frame.delta.append}` : 'whole';
    };
    // (The source's word is taken: its appended text is, by its contract, what the text grew by.)
    expect([at('ab'), at('abcd', 'XY'), at('abcdef', 'toolong'), at('abcdefg', '')]).toEqual([
      'whole',
      '+XY',
      '+ef',
      '+g',
    ]);
  });

  it('a field that appears is set; one that goes away sends the whole message', () => {
    const encoder = new FrameEncoder('delta');
    const status = (s: string) => ({ ...answer('ab'), status: s }) as unknown as ChatMessage;
    expect(kinds(encoder, [answer('a'), status('in_progress'), status('done'), answer('abc')])).toEqual([
      'whole',
      '+b {"status":"in_progress"}',
      '+ {"status":"done"}',
      'whole',
    ]);
    // Fields in another order are the same fields.
    const { id, role, ...rest } = answer('abcd');
    expect(kinds(encoder, [{ ...rest, role, id }])).toEqual(['+d']);
    // A field that turns undefined is gone from the JSON: the message goes whole.
    expect(kinds(encoder, [{ ...answer('abcde'), author_name: undefined }])).toEqual(['whole']);
  });

  it('text, code, its output and errors take appends; a change of language or of kind, or other content, goes whole', () => {
    const encoder = new FrameEncoder('delta');
    const web = (id: string, content: unknown) =>
      ({
        id,
        source: 'openai_web',
        role: 'assistant',
        children: [],
        content,
        metadata: {},
      }) as unknown as ChatMessage;
    const code = (text: string, language = 'python') => web('c1', { content_type: 'code', language, text });
    const parts = (...p: unknown[]) => web('t1', { content_type: 'text', parts: p });
    expect(
      kinds(encoder, [
        code('im'),
        code('import'),
        code('import os', 'py'),
        web('c1', { content_type: 'execution_output', text: 'import os' }),
        web('c1', { content_type: 'execution_output', text: 'import os\nok' }),
        parts('Hel'),
        parts('Hello'),
        parts('Hello', ' there'),
        parts({ asset_pointer: 'file-1' }),
        parts({ asset_pointer: 'file-1' }),
      ]),
    ).toEqual(['whole', '+port', 'whole', 'whole', '+\nok', 'whole', '+lo', 'whole', 'whole', 'whole']);
    // An API message whose content is not plain text goes whole.
    const apiCode = (text: string) =>
      ({
        ...answer(''),
        id: 'm2',
        content: { content_type: 'code', language: 'py', text },
      }) as unknown as ChatMessage;
    expect(kinds(encoder, [apiCode('a'), apiCode('ab'), answer('x'), answer('xy')])).toEqual([
      'whole',
      'whole',
      'whole',
      '+y',
    ]);
  });

  it('full mode sends every snapshot whole', () => {
    const encoder = new FrameEncoder('full');
    expect(kinds(encoder, [answer('a'), answer('ab')])).toEqual(['whole', 'whole']);
  });
});
