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

const LF = 0x0a;
const CR = 0x0d;
const SPACE = 0x20;
/** `data:` */
const DATA = Buffer.from('data:');
const BOM = Buffer.from([0xef, 0xbb, 0xbf]);

/**
 * Server-sent events, parsed line by line, yielded a read at a time: every event that one read of the body
 * completed comes in one array (an upstream that sends several events close together is relayed in one step, and
 * the consumer's loop turns once a read, not once an event). An event's data lines are joined with "\n"; comments
 * (":…") and other fields are skipped. The stream ends only on an event whose data is exactly `[DONE]` — an answer
 * that merely contains the text "[DONE]" is data like any other. What follows `[DONE]` is read to the end
 * (`drain`).
 *
 * Lines are found in the bytes and only a data line's value is decoded (a line ends at a byte that is never part
 * of a multi-byte character, so a complete line decodes alone): a chunk of a streamed answer costs one string,
 * its event's data, not the read's text, its lines and the text left over.
 */
export async function* sseBatches(body: AsyncIterable<Uint8Array>): AsyncGenerator<string[]> {
  /** The bytes of a line not complete yet (a copy: a read's buffer may be reused). */
  let rest: Buffer | null = null;
  let first = true;
  let data: string[] = [];
  /** Ends the event being read: true when it was `[DONE]`. */
  const flush = (events: string[]): boolean => {
    if (data.length === 0) return false;
    const payload = data.length === 1 ? data[0]! : data.join('\n');
    data = [];
    if (payload === '[DONE]') return true;
    events.push(payload);
    return false;
  };
  /** One line, `from` to `to` (its end of line excluded). */
  const line = (bytes: Buffer, from: number, to: number, events: string[]): boolean => {
    if (to === from) return flush(events);
    if (to - from >= DATA.length && bytes.compare(DATA, 0, DATA.length, from, from + DATA.length) === 0) {
      const value = from + DATA.length;
      data.push(bytes.toString('utf8', bytes[value] === SPACE ? value + 1 : value, to));
    }
    // comments (":…") and other fields are skipped
    return false;
  };
  /** Reads the complete lines of `bytes` into `events` and keeps what is left: true when `[DONE]` came. */
  const lines = (bytes: Buffer, events: string[]): boolean => {
    let start = 0;
    if (first) {
      // A byte order mark at the very start is not part of the first line.
      if (bytes.length < BOM.length && bytes.indexOf(LF) < 0) {
        rest = Buffer.from(bytes);
        return false;
      }
      first = false;
      if (bytes.length >= BOM.length && bytes.compare(BOM, 0, BOM.length, 0, BOM.length) === 0)
        start = BOM.length;
    }
    let nl: number;
    while ((nl = bytes.indexOf(LF, start)) >= 0) {
      const end = nl > start && bytes[nl - 1] === CR ? nl - 1 : nl;
      const done = line(bytes, start, end, events);
      start = nl + 1;
      if (done) return true;
    }
    rest = start < bytes.length ? Buffer.from(bytes.subarray(start)) : null;
    return false;
  };
  const chunks = body[Symbol.asyncIterator]();
  // Whether the body is read to its end (or drained); otherwise it is given up when this generator ends, as a
  // `for await` loop does when left early (the consumer stopped, or an event failed).
  let settled = false;
  try {
    for (;;) {
      let next: IteratorResult<Uint8Array>;
      try {
        next = await chunks.next();
      } catch (e) {
        settled = true;
        throw e;
      }
      if (next.done) {
        settled = true;
        break;
      }
      const read = Buffer.from(next.value.buffer, next.value.byteOffset, next.value.byteLength);
      const bytes: Buffer = rest ? Buffer.concat([rest, read]) : read;
      rest = null;
      const events: string[] = [];
      const done = lines(bytes, events);
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
  const events: string[] = [];
  const last = (rest as Buffer | null)?.toString('utf8') ?? '';
  if (last.startsWith('data:')) data.push(last.slice(5).trimStart());
  const done = flush(events);
  if (events.length > 0) yield events;
  if (done) return;
  // The connection closed cleanly but the answer never said it was complete: it was cut off.
  throw new UpstreamEndedWithoutDone('the upstream stream ended before data: [DONE]', 'STREAM_CUT');
}
