import { UpstreamEndedWithoutDone } from './errors';

/**
 * Server-sent events, parsed line by line. An event's data lines are joined with "\n"; comments (":…") and
 * other fields are skipped. The stream ends only on an event whose data is exactly `[DONE]` — an answer that
 * merely contains the text "[DONE]" is data like any other.
 */
export async function* parseSse(body: AsyncIterable<Uint8Array>): AsyncGenerator<string> {
  const decoder = new TextDecoder();
  let buffer = '';
  let data: string[] = [];
  const flush = function* (): Generator<string, boolean> {
    if (data.length === 0) return false;
    const payload = data.join('\n');
    data = [];
    if (payload === '[DONE]') return true;
    yield payload;
    return false;
  };
  for await (const chunk of body) {
    buffer += decoder.decode(chunk, { stream: true });
    let nl: number;
    while ((nl = buffer.indexOf('\n')) >= 0) {
      let line = buffer.slice(0, nl);
      buffer = buffer.slice(nl + 1);
      if (line.endsWith('\r')) line = line.slice(0, -1);
      if (line === '') {
        if (yield* flush()) return;
        continue;
      }
      if (line.startsWith(':')) continue;
      if (line.startsWith('data:')) {
        const value = line.slice(5);
        data.push(value.startsWith(' ') ? value.slice(1) : value);
      }
    }
  }
  buffer += decoder.decode();
  if (buffer.startsWith('data:')) data.push(buffer.slice(5).trimStart());
  if (yield* flush()) return;
  // The connection closed cleanly but the answer never said it was complete: it was cut off.
  throw new UpstreamEndedWithoutDone('the upstream stream ended before data: [DONE]', 'STREAM_CUT');
}
