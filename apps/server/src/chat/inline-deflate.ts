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
    // The native write takes only a Buffer (anything else aborts the process); the socket hands text as a string.
    const data = typeof input === 'string' ? Buffer.from(input) : input;
    if (!Buffer.isBuffer(data)) throw new TypeError('the deflate stream takes a Buffer or a string');
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
      if (produced > 0) parts.push(Buffer.from(scratch.subarray(0, produced)));
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

/**
 * Makes a socket's outgoing frames compress in-line, when it negotiated permessage-deflate (as a server). Honours
 * the negotiated window and context takeover. A socket whose extension does not look as expected keeps the
 * library's own compression, which is correct, only slower.
 */
export function compressInline(socket: WebSocket, options: zlib.ZlibOptions): void {
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
  extension.compress = (data, fin, callback) => {
    let out: Buffer;
    try {
      deflater ??= new InlineDeflater({ ...options, windowBits });
      out = deflater.push(data);
    } catch (err) {
      // zlib failed (out of memory): the frame cannot be sent and the stream's context is lost with it.
      socket.terminate();
      callback(err as Error);
      return;
    }
    // The last frame of a message leaves out the flush's 00 00 ff ff (RFC 7692 §7.2.1).
    if (fin) out = out.subarray(0, out.length - 4);
    if (fin && noContextTakeover) deflater.reset();
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
    deflater?.close();
    deflater = null;
    cleanup();
  };
}
