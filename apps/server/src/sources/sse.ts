import { UpstreamEndedWithoutDone } from './errors';

/** What is read of a body after its `[DONE]` at most (normally nothing follows it). */
export const DRAIN_LIMIT_BYTES = 64 * 1024;

/**
 * Reads what follows `[DONE]` to the body's end, in the background: a response read to its end lets its connection
 * serve the next request, where a body given up early closes it (a new connection, with TLS, for the next ask)
 * and costs an AbortError. More than DRAIN_LIMIT_BYTES, or a failure, and the body is let go.
 */
function drain(chunks: AsyncIterator<Uint8Array>): void {
  void (async () => {
    let bytes = 0;
    for (;;) {
      const next = await chunks.next();
      if (next.done) return;
      bytes += next.value.length;
      if (bytes > DRAIN_LIMIT_BYTES) {
        await chunks.return?.();
        return;
      }
    }
  })().catch(() => undefined);
}

/**
 * Server-sent events, parsed line by line. An event's data lines are joined with "\n"; comments (":…") and
 * other fields are skipped. The stream ends only on an event whose data is exactly `[DONE]` — an answer that
 * merely contains the text "[DONE]" is data like any other. What follows `[DONE]` is read to the end (`drain`).
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
  const chunks = body[Symbol.asyncIterator]();
  // Whether the body is read to its end (or drained); otherwise it is given up when this generator ends, as a
  // `for await` loop does when left early (the consumer stopped, or an event failed).
  let settled = false;
  try {
    for (;;) {
      const next = await chunks.next().catch((e: unknown) => {
        settled = true;
        throw e;
      });
      if (next.done) {
        settled = true;
        break;
      }
      buffer += decoder.decode(next.value, { stream: true });
      let nl: number;
      while ((nl = buffer.indexOf('\n')) >= 0) {
        let line = buffer.slice(0, nl);
        buffer = buffer.slice(nl + 1);
        if (line.endsWith('\r')) line = line.slice(0, -1);
        if (line === '') {
          if (yield* flush()) {
            settled = true;
            drain(chunks);
            return;
          }
          continue;
        }
        if (line.startsWith(':')) continue;
        if (line.startsWith('data:')) {
          const value = line.slice(5);
          data.push(value.startsWith(' ') ? value.slice(1) : value);
        }
      }
    }
  } finally {
    if (!settled) await chunks.return?.();
  }
  buffer += decoder.decode();
  if (buffer.startsWith('data:')) data.push(buffer.slice(5).trimStart());
  if (yield* flush()) return;
  // The connection closed cleanly but the answer never said it was complete: it was cut off.
  throw new UpstreamEndedWithoutDone('the upstream stream ended before data: [DONE]', 'STREAM_CUT');
}
