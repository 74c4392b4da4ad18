import zlib from 'node:zlib';
import type { WebSocket } from 'ws';

/**
 * permessage-deflate done in-line. The websocket library compresses each frame on the thread pool: a write and a
 * flush, two round trips of ~30 µs of main-thread work each, for a frame of a few dozen bytes. Answer frames are
 * that small and there are thousands a second, so the round trips cost far more than the compression itself
 * (~3 µs in-line). The same zlib, with the same settings and the context kept between frames, runs here through
 * the synchronous write Node's own one-shot helpers use.
 */

/** The parts of Node's zlib stream used here: its native handle's synchronous write and the state it fills. */
interface ZlibInternals {
  _handle: {
    writeSync(
      flush: number,
      input: Buffer,
      inOff: number,
      inLen: number,
      out: Buffer,
      outOff: number,
      outLen: number,
    ): void;
  } | null;
  /** After a write: [output space left, input left]. */
  _writeState: Uint32Array;
}

/** The websocket library's permessage-deflate extension of one socket (the members used here). */
interface DeflateExtension {
  _isServer: boolean;
  params: Record<string, unknown> | null;
  /** `data` is a Buffer, or a string for a text frame. */
  compress(data: Buffer | string, fin: boolean, callback: (err: Error | null, result?: Buffer) => void): void;
  decompress(data: Buffer, fin: boolean, callback: (err: Error | null, result?: Buffer) => void): void;
  /** The inflate stream of the client's messages, made at the first one. */
  _inflate: zlib.InflateRaw | null;
  cleanup(): void;
}

/** Output space for one write; what is written is copied out before the next one, so one serves every socket. */
const scratch = Buffer.allocUnsafe(64 * 1024);

/**
 * Sockets at once that keep a compression context of their own. Node's zlib gives every compressor ~110 kB (a 64 kB
 * hash table whatever its memory level, where the CPU has CRC32 instructions, and the window), the largest part of
 * a stream's memory: 1,000 streams took ~110 MB for it. Beyond this many, a socket compresses with a context shared
 * by all of them (see `SharedCompressor`): a few kB per socket, a few µs more per frame, frames somewhat larger.
 */
export const OWN_CONTEXTS = 128;

/** A frame of fewer bytes than this refers back to at most `SMALL_FRAME_PRIME` bytes of what came before it. */
const SMALL_FRAME = 256;
const SMALL_FRAME_PRIME = 128;

/** A raw deflate stream compressed synchronously: each push returns its input compressed and flushed. */
export class InlineDeflater {
  private readonly stream: zlib.DeflateRaw & ZlibInternals;
  private error: Error | null = null;

  constructor(options: zlib.ZlibOptions) {
    // The stream's own output buffer is never used: the smallest one zlib allows.
    this.stream = zlib.createDeflateRaw({
      ...options,
      chunkSize: zlib.constants.Z_MIN_CHUNK,
    }) as zlib.DeflateRaw & ZlibInternals;
    this.stream.on('error', (err: Error) => {
      this.error = err;
    });
  }

  /** `input` compressed and flushed to a byte boundary (Z_SYNC_FLUSH: it ends with 00 00 ff ff). */
  push(input: Buffer | string): Buffer {
    return this.write(asBuffer(input), true);
  }

  /**
   * The context as after compressing `history` (output dropped) and nothing before it: what follows may refer back
   * into `history`, never further.
   */
  primeWith(history: Buffer): void {
    this.reset();
    if (history.length > 0) this.write(history, false);
  }

  /** Compresses and flushes `data`; the output is kept only when `keep` (a primer's is not). */
  private write(data: Buffer, keep: boolean): Buffer {
    const handle = this.stream._handle;
    if (!handle || this.error) throw this.error ?? new Error('the deflate stream is closed');
    const state = this.stream._writeState;
    const parts: Buffer[] = [];
    let inOff = 0;
    let inLen = data.length;
    for (;;) {
      handle.writeSync(zlib.constants.Z_SYNC_FLUSH, data, inOff, inLen, scratch, 0, scratch.length);
      // The handle reports a failure through the stream's error event, during the write.
      const failed = this.error as Error | null;
      if (failed) throw failed;
      const outLeft = state[0]!;
      const inLeft = state[1]!;
      const produced = scratch.length - outLeft;
      if (produced > 0 && keep) parts.push(Buffer.from(scratch.subarray(0, produced)));
      inOff += inLen - inLeft;
      inLen = inLeft;
      // Output space left over: all the input is in and flushed.
      if (outLeft !== 0) break;
    }
    return parts.length === 1 ? parts[0]! : Buffer.concat(parts);
  }

  /** Forgets the context (the next push refers to nothing before it). */
  reset(): void {
    this.stream.reset();
  }

  close(): void {
    this.stream.close();
  }
}

/** The native write takes only a Buffer (anything else aborts the process); a socket hands text as a string. */
function asBuffer(input: Buffer | string): Buffer {
  const data = typeof input === 'string' ? Buffer.from(input) : input;
  if (!Buffer.isBuffer(data)) throw new TypeError('the deflate stream takes a Buffer or a string');
  return data;
}

/**
 * The last bytes a socket sent compressed, up to its window: what its client's inflater holds (the client keeps
 * the uncompressed text of every compressed message in its window, RFC 7692 §7.2.3). Grows as needed.
 */
export class SentBytes {
  private buffer = Buffer.alloc(0);
  private length = 0;

  constructor(private readonly capacity: number) {}

  add(data: Buffer): void {
    if (data.length >= this.capacity) {
      if (this.buffer.length < this.capacity) this.buffer = Buffer.allocUnsafeSlow(this.capacity);
      data.copy(this.buffer, 0, data.length - this.capacity);
      this.length = this.capacity;
      return;
    }
    const needed = this.length + data.length;
    if (needed > this.buffer.length && this.buffer.length < this.capacity) {
      const grown = Buffer.allocUnsafeSlow(Math.min(this.capacity, Math.max(needed, 2 * this.buffer.length)));
      this.buffer.copy(grown, 0, 0, this.length);
      this.buffer = grown;
    }
    if (needed > this.buffer.length) {
      // Full: the oldest bytes go.
      const drop = needed - this.buffer.length;
      this.buffer.copyWithin(0, drop, this.length);
      this.length -= drop;
    }
    data.copy(this.buffer, this.length);
    this.length += data.length;
  }

  /** The last `n` bytes (all of them when fewer), as a view valid until the next `add`. */
  last(n: number): Buffer {
    return this.buffer.subarray(Math.max(0, this.length - n), this.length);
  }

  clear(): void {
    this.length = 0;
  }
}

/**
 * One compression context for many sockets. Before each frame it is reset and primed with the last bytes that
 * socket sent (its client holds the same bytes at the same distances), so the frame refers back only into them. A
 * short frame (an answer's appended text) is primed with its last 128 bytes: the frame's own JSON is found there
 * (more, up to 512, made the relay bench's answers no smaller); a longer one (a whole message at an answer's end)
 * with most of the window, so its text is found in what was streamed before it. One context per window size.
 */
export class SharedCompressor {
  private readonly deflaters = new Map<number, InlineDeflater>();

  constructor(private readonly options: zlib.ZlibOptions) {}

  /** How far back a long frame may refer: three quarters of the window (see `compress`). */
  private static reach(windowBits: number): number {
    return (3 << windowBits) >> 2;
  }

  /** A socket's record of what it sent, as long as this compressor ever looks back. */
  static sentBytes(windowBits: number): SentBytes {
    return new SentBytes(SharedCompressor.reach(windowBits));
  }

  compress(windowBits: number, sent: SentBytes, data: Buffer): Buffer {
    let deflater = this.deflaters.get(windowBits);
    if (!deflater) {
      deflater = new InlineDeflater({ ...this.options, windowBits });
      this.deflaters.set(windowBits, deflater);
    }
    try {
      // A long frame is primed with three quarters of the window, not all of it: primed with (nearly) a whole
      // window, zlib found far fewer matches (a full-mode answer's frames came out ~4 times larger).
      deflater.primeWith(
        sent.last(data.length < SMALL_FRAME ? SMALL_FRAME_PRIME : SharedCompressor.reach(windowBits)),
      );
      return deflater.push(data);
    } catch (err) {
      // zlib failed (out of memory): the next frame gets a new context; this socket's frame is lost.
      this.deflaters.delete(windowBits);
      deflater.close();
      throw err;
    }
  }
}

/**
 * Shorter than this, a message from a socket on the shared context gains nothing from compression: primed with its
 * last 128 bytes, 8 bytes of an answer's text came out 6 % larger than themselves, 16 bytes 10 % smaller — and the
 * priming costs more than the compression. Such a message goes uncompressed (RFC 7692 lets each message choose; an
 * uncompressed one is not part of the client's inflate window, nor of the socket's `SentBytes`).
 */
export const SHARED_CONTEXT_MIN_BYTES = 16;

/** Sockets compressing with the shared context. */
const onSharedContext = new WeakSet<WebSocket>();

/** Whether a message of `bytes` bytes from `socket` is worth compressing (see `SHARED_CONTEXT_MIN_BYTES`). */
export function worthCompressing(socket: WebSocket, bytes: number): boolean {
  return bytes >= SHARED_CONTEXT_MIN_BYTES || !onSharedContext.has(socket);
}

let ownContexts = 0;
/** The shared compressor of each set of options (the chat sockets have one). */
const sharedCompressors = new WeakMap<zlib.ZlibOptions, SharedCompressor>();

function sharedCompressorFor(options: zlib.ZlibOptions): SharedCompressor {
  let shared = sharedCompressors.get(options);
  if (!shared) {
    shared = new SharedCompressor(options);
    sharedCompressors.set(options, shared);
  }
  return shared;
}

/** Sockets now compressing with a context of their own (at most `OWN_CONTEXTS`). */
export function socketsWithOwnContext(): number {
  return ownContexts;
}

/**
 * Makes a socket's outgoing frames compress in-line, when it negotiated permessage-deflate (as a server). Honours
 * the negotiated window and context takeover. A socket whose extension does not look as expected keeps the
 * library's own compression, which is correct, only slower. The socket keeps a context of its own if fewer than
 * `ownLimit` sockets have one when it sends its first frame; otherwise it uses the shared one for its life.
 */
export function compressInline(
  socket: WebSocket,
  options: zlib.ZlibOptions,
  ownLimit: number = OWN_CONTEXTS,
): void {
  const extensions = (socket as unknown as { _extensions?: Record<string, DeflateExtension | undefined> })
    ._extensions;
  const extension = extensions?.['permessage-deflate'];
  if (
    !extension?._isServer ||
    !extension.params ||
    typeof extension.compress !== 'function' ||
    typeof extension.cleanup !== 'function'
  )
    return;
  const bits = extension.params.server_max_window_bits;
  const windowBits = typeof bits === 'number' ? bits : zlib.constants.Z_DEFAULT_WINDOWBITS;
  const noContextTakeover = extension.params.server_no_context_takeover === true;
  let deflater: InlineDeflater | null = null;
  /** With the shared context: what this socket sent compressed (none yet: it has sent no frame). */
  let sent: SentBytes | null = null;
  extension.compress = (data, fin, callback) => {
    let out: Buffer;
    try {
      const input = asBuffer(data);
      if (!deflater && !sent) {
        if (ownContexts < ownLimit) {
          deflater = new InlineDeflater({ ...options, windowBits });
          ownContexts++;
        } else {
          sent = SharedCompressor.sentBytes(windowBits);
          onSharedContext.add(socket);
        }
      }
      if (deflater) {
        out = deflater.push(input);
        if (fin && noContextTakeover) deflater.reset();
      } else {
        out = sharedCompressorFor(options).compress(windowBits, sent!, input);
        // Without context takeover, the next message refers to nothing before it.
        if (fin && noContextTakeover) sent!.clear();
        else sent!.add(input);
      }
    } catch (err) {
      // zlib failed (out of memory): the frame cannot be sent and the stream's context is lost with it.
      socket.terminate();
      callback(err as Error);
      return;
    }
    // The last frame of a message leaves out the flush's 00 00 ff ff (RFC 7692 §7.2.1).
    if (fin) out = out.subarray(0, out.length - 4);
    callback(null, out);
  };
  // Each client message stands alone (the server asked for client_no_context_takeover): its inflate state (~40 KB
  // with the window) goes once the message is read, instead of living as long as the socket. A chat socket
  // receives one question, perhaps a stop, while it streams a whole answer.
  if (extension.params.client_no_context_takeover === true && typeof extension.decompress === 'function') {
    const decompress = extension.decompress.bind(extension);
    extension.decompress = (data, fin, callback) =>
      decompress(data, fin, (err, result) => {
        if (fin && extension._inflate) {
          extension._inflate.close();
          extension._inflate = null;
        }
        callback(err, result);
      });
  }
  const cleanup = extension.cleanup.bind(extension);
  extension.cleanup = () => {
    if (deflater) {
      deflater.close();
      deflater = null;
      ownContexts--;
    }
    sent = null;
    cleanup();
  };
}
