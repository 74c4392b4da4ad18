import { describe, expect, it } from 'vitest';
import { UpstreamNetworkError } from './errors';
import { parseSse } from './sse';

async function collect(chunks: string[]): Promise<string[]> {
  const enc = new TextEncoder();
  async function* gen() {
    for (const c of chunks) yield enc.encode(c);
  }
  const out: string[] = [];
  for await (const e of parseSse(gen())) out.push(e);
  return out;
}

describe('parseSse', () => {
  it('splits events across arbitrary chunk boundaries', async () => {
    expect(await collect(['data: {"a"', ':1}\n\nda', 'ta: {"b":2}\r\n\r\n', 'data: [DONE]\n\n'])).toEqual([
      '{"a":1}',
      '{"b":2}',
    ]);
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
});
