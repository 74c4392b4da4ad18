import { describe, expect, it } from 'vitest';
import { UpstreamNetworkError } from './errors';
import { until } from '../test/chat-client';
import { DRAIN_LIMIT_BYTES, sseBatches } from './sse';

/** Every event of a body, one at a time. */
async function* parseSse(body: AsyncIterable<Uint8Array>): AsyncGenerator<string> {
  for await (const events of sseBatches(body)) yield* events;
}

async function collect(chunks: string[]): Promise<string[]> {
  const enc = new TextEncoder();
  async function* gen() {
    for (const c of chunks) yield enc.encode(c);
  }
  const out: string[] = [];
  for await (const e of parseSse(gen())) out.push(e);
  return out;
}

describe('sseBatches', () => {
  it('splits events across arbitrary chunk boundaries', async () => {
    expect(await collect(['data: {"a"', ':1}\n\nda', 'ta: {"b":2}\r\n\r\n', 'data: [DONE]\n\n'])).toEqual([
      '{"a":1}',
      '{"b":2}',
    ]);
  });

  it('gives the events one read completed together, in order, and none that is incomplete', async () => {
    const enc = new TextEncoder();
    async function* gen() {
      yield enc.encode('data: 1\n\ndata: 2\n\ndata: 3');
      yield enc.encode('\n\ndata: 4\n\n');
      yield enc.encode('data: 5\n\ndata: [DONE]\n\n');
    }
    const batches: string[][] = [];
    for await (const events of sseBatches(gen())) batches.push(events);
    expect(batches).toEqual([['1', '2'], ['3', '4'], ['5']]);
  });

  it('ends only on the exact [DONE] line, not on an answer containing "[DONE]"', async () => {
    const events = await collect([
      'data: {"text":"the marker [DONE] is mid-answer"}\n\n',
      'data: {"text":"still going"}\n\n',
      'data: [DONE]\n\n',
      'data: {"text":"after done"}\n\n',
    ]);
    expect(events).toEqual(['{"text":"the marker [DONE] is mid-answer"}', '{"text":"still going"}']);
  });

  it('skips comments and other fields, joins multi-line data', async () => {
    expect(await collect([': ping\n\nevent: x\ndata: a\ndata: b\n\n', 'data: [DONE]\n\n'])).toEqual(['a\nb']);
  });

  it('decodes characters split between reads, and skips a byte order mark at the start', async () => {
    const bytes = Buffer.concat([
      Buffer.from([0xef, 0xbb]),
      Buffer.from([0xbf]),
      Buffer.from('data: {"t":"你好 🙂"}\n\n:\n\ndata: x\n\ndata: [DONE]\n\n'),
    ]);
    async function* everyByte() {
      for (let i = 0; i < bytes.length; i++) yield bytes.subarray(i, i + 1);
    }
    const out: string[] = [];
    for await (const e of parseSse(everyByte())) out.push(e);
    expect(out).toEqual(['{"t":"你好 🙂"}', 'x']);
    // Anywhere else it is part of the line (here: not a data line).
    expect(await collect(['\n', '\ufeffdata: y\n\n', 'data: [DONE]\n\n'])).toEqual([]);
  });

  it('reads a last line without a trailing blank line', async () => {
    expect(await collect(['data: tail\n\n', 'data: [DONE]'])).toEqual(['tail']);
  });

  it('a stream that closes without [DONE] was cut off: the events arrive, then a network error', async () => {
    const seen: string[] = [];
    const enc = new TextEncoder();
    async function* gen() {
      yield enc.encode('data: {"text":"partial"}\n\ndata: {"text":"more"}');
    }
    const read = async () => {
      for await (const e of parseSse(gen())) seen.push(e);
    };
    await expect(read()).rejects.toBeInstanceOf(UpstreamNetworkError);
    expect(seen).toEqual(['{"text":"partial"}', '{"text":"more"}']);
  });

  /** A body that records how it was read: to its end, or given up (`return`) before. */
  function recordedBody(chunks: string[]) {
    const enc = new TextEncoder();
    const state = { read: 0, ended: false, givenUp: false };
    const body: AsyncIterable<Uint8Array> = {
      [Symbol.asyncIterator]: () => ({
        next: () => {
          if (state.read >= chunks.length) {
            state.ended = true;
            return Promise.resolve({ done: true, value: undefined });
          }
          return Promise.resolve({ done: false, value: enc.encode(chunks[state.read++]) });
        },
        return: () => {
          state.givenUp = true;
          return Promise.resolve({ done: true, value: undefined });
        },
      }),
    };
    return { body, state };
  }

  it('after [DONE] the body is read to its end, not given up (its connection serves the next request)', async () => {
    const { body, state } = recordedBody(['data: {"a":1}\n\ndata: [DONE]\n\n', '', '\n']);
    const events: string[] = [];
    for await (const e of parseSse(body)) events.push(e);
    expect(events).toEqual(['{"a":1}']);
    await until(() => state.ended);
    expect(state.givenUp).toBe(false);
  });

  it('what follows [DONE] is read up to a limit, then the body is given up', async () => {
    const { body, state } = recordedBody([
      'data: [DONE]\n\n',
      'x'.repeat(DRAIN_LIMIT_BYTES),
      'more',
      'and more',
    ]);
    for await (const e of parseSse(body)) throw new Error(`no event expected, got ${e}`);
    await until(() => state.givenUp);
    expect(state.ended).toBe(false);
  });

  it('a consumer that stops early gives the body up, as a for-await loop does', async () => {
    const { body, state } = recordedBody(['data: 1\n\ndata: 2\n\n', 'data: 3\n\n', 'data: [DONE]\n\n']);
    for await (const e of parseSse(body)) if (e === '1') break;
    expect(state.givenUp).toBe(true);
    expect(state.ended).toBe(false);
  });
});
