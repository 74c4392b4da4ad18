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
 * Server-sent events, parsed line by line, yielded a read at a time: every event that one read of the body
 * completed comes in one array (an upstream that sends several events close together is relayed in one step, and
 * the consumer's loop turns once a read, not once an event). An event's data lines are joined with "\n"; comments
 * (":…") and other fields are skipped. The stream ends only on an event whose data is exactly `[DONE]` — an answer
 * that merely contains the text "[DONE]" is data like any other. What follows `[DONE]` is read to the end
 * (`drain`).
 */
export async function* sseBatches(body: AsyncIterable<Uint8Array>): AsyncGenerator<string[]> {
  const decoder = new TextDecoder();
  let buffer = '';
  let data: string[] = [];
  /** Ends the event being read: true when it was `[DONE]`. */
  const flush = (events: string[]): boolean => {
    if (data.length === 0) return false;
    const payload = data.join('\n');
    data = [];
    if (payload === '[DONE]') return true;
    events.push(payload);
    return false;
  };
  /** Reads the complete lines of the buffer into `events`: true when `[DONE]` came. */
  const lines = (events: string[]): boolean => {
    let start = 0;
    let nl: number;
    while ((nl = buffer.indexOf('\n', start)) >= 0) {
      const end = nl > start && buffer.charCodeAt(nl - 1) === 13 ? nl - 1 : nl;
      const line = buffer.slice(start, end);
      start = nl + 1;
      if (line === '') {
        if (flush(events)) return true;
      } else if (line.startsWith('data:')) {
        data.push(line.charCodeAt(5) === 32 ? line.slice(6) : line.slice(5));
      }
      // comments (":…") and other fields are skipped
    }
    buffer = start === 0 ? buffer : buffer.slice(start);
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
      const events: string[] = [];
      const done = lines(events);
      if (done) {
        settled = true;
        drain(chunks);
      }
      if (events.length > 0) yield events;
      if (done) return;
    }
  } finally {
    if (!settled) await chunks.return?.();
  }
  buffer += decoder.decode();
  const events: string[] = [];
  if (buffer.startsWith('data:')) data.push(buffer.slice(5).trimStart());
  const done = flush(events);
  if (events.length > 0) yield events;
  if (done) return;
  // The connection closed cleanly but the answer never said it was complete: it was cut off.
  throw new UpstreamEndedWithoutDone('the upstream stream ended before data: [DONE]', 'STREAM_CUT');
}
