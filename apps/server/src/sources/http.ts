import type { Readable } from 'node:stream';
import { Agent, ProxyAgent, request } from 'undici';
import type { Dispatcher } from 'undici';
import { assertPublicUrl, publicOnlyLookup } from './address-guard';
import { UpstreamError, UpstreamNetworkError, UpstreamTimeout } from './errors';
import type { UpstreamTarget } from './types';

export interface HttpOptions {
  /** Time to open the connection, ms. */
  connectTimeoutMs: number;
  /** Longest wait for headers and, while streaming, between two chunks, ms. */
  readTimeoutMs: number;
  /** HTTP(S) proxy URL, or null. */
  proxy: string | null;
  /** Connect only to public addresses (a URL a user chose: see `UpstreamTarget.publicOnly`). */
  publicOnly?: boolean;
  signal?: AbortSignal;
}

/**
 * The HTTP options of one call to a target: its proxy and connect timeout, and as read timeout the target's own
 * (asks: the source's ask/read timeout; other calls get a target whose read timeout is the shorter call timeout),
 * or `readTimeoutMs` when the call needs another one (uploads and downloads of large files, titles).
 */
export function httpOptions(
  target: UpstreamTarget,
  options: { signal?: AbortSignal; readTimeoutMs?: number } = {},
): HttpOptions {
  return {
    connectTimeoutMs: target.connectTimeoutMs,
    readTimeoutMs: options.readTimeoutMs ?? target.readTimeoutMs,
    proxy: target.proxy,
    publicOnly: target.publicOnly ?? false,
    signal: options.signal,
  };
}

export interface UpstreamResponse {
  status: number;
  /** Response headers, lower-cased names. */
  headers: Record<string, string | string[] | undefined>;
  body: AsyncIterable<Uint8Array>;
  text(): Promise<string>;
  json<T>(): Promise<T>;
}

const dispatchers = new Map<string, Dispatcher>();

/** One keep-alive pool per (proxy, connect timeout, public addresses only). */
function dispatcherFor(proxy: string | null, connectTimeoutMs: number, publicOnly: boolean): Dispatcher {
  const key = `${proxy ?? ''}|${connectTimeoutMs}|${publicOnly}`;
  let d = dispatchers.get(key);
  if (!d) {
    // Through a proxy the proxy resolves names: only the URL's own host can be checked (assertPublicUrl).
    d = proxy
      ? new ProxyAgent({ uri: proxy, connect: { timeout: connectTimeoutMs } })
      : new Agent({
          connect: { timeout: connectTimeoutMs, ...(publicOnly ? { lookup: publicOnlyLookup } : {}) },
          keepAliveTimeout: 10_000,
        });
    dispatchers.set(key, d);
  }
  return d;
}

function mapError(e: unknown, signal?: AbortSignal): Error {
  if (signal?.aborted)
    return signal.reason instanceof Error ? signal.reason : new DOMException('aborted', 'AbortError');
  const code = (e as { code?: string }).code ?? '';
  if (/TIMEOUT/.test(code)) return new UpstreamTimeout(code);
  if (e instanceof UpstreamError) return e;
  return new UpstreamNetworkError(`${code} ${(e as Error).message}`.trim(), code || null);
}

/** Chunks a body may have read ahead of its reader before it pauses (its socket then waits too). */
const READ_AHEAD_CHUNKS = 16;

/**
 * The body read as it arrives, its failures mapped to upstream errors. Its chunks are taken from the stream's
 * `data` events into a short queue rather than through the stream's own async iterator: that one reads each chunk
 * through `read()` with a few promises and stream states around it, a large part of the allocations of a streamed
 * answer's chunk. Up to READ_AHEAD_CHUNKS wait for the reader, then the stream pauses until it catches up. What came
 * before a failure is read first. Leaving early (`return`) destroys the body, as leaving a `for await` loop did.
 */
function bodyReads(body: Readable, signal?: AbortSignal): AsyncIterable<Uint8Array> {
  let reads: AsyncIterator<Uint8Array> | null = null;
  const start = (): AsyncIterator<Uint8Array> => {
    const queue: Uint8Array[] = [];
    let ended = false;
    let failure: Error | null = null;
    let waiting: { resolve: (r: IteratorResult<Uint8Array>) => void; reject: (e: Error) => void } | null =
      null;
    const settle = () => {
      const w = waiting;
      if (!w) return;
      waiting = null;
      if (failure) w.reject(failure);
      else w.resolve({ done: true, value: undefined });
    };
    body.on('data', (chunk: Uint8Array) => {
      const w = waiting;
      if (w) {
        waiting = null;
        w.resolve({ done: false, value: chunk });
        return;
      }
      queue.push(chunk);
      if (queue.length >= READ_AHEAD_CHUNKS) body.pause();
    });
    body.once('end', () => {
      ended = true;
      settle();
    });
    body.once('error', (e: unknown) => {
      failure ??= mapError(e, signal);
      settle();
    });
    body.once('close', () => {
      // Destroyed before its end without an error of its own (its socket went away): cut off.
      if (!ended)
        failure ??= mapError(
          Object.assign(new Error('the body closed early'), { code: 'UND_ERR_SOCKET' }),
          signal,
        );
      settle();
    });
    return {
      next() {
        const chunk = queue.shift();
        if (chunk) {
          if (queue.length === 0 && body.isPaused() && !ended) body.resume();
          return Promise.resolve({ done: false, value: chunk });
        }
        if (failure) return Promise.reject(failure);
        if (ended) return Promise.resolve({ done: true, value: undefined });
        return new Promise((resolve, reject) => (waiting = { resolve, reject }));
      },
      return(value?: unknown) {
        ended = true;
        queue.length = 0;
        body.destroy();
        return Promise.resolve({ done: true, value: value as Uint8Array });
      },
    };
  };
  return {
    [Symbol.asyncIterator]() {
      reads ??= start();
      return reads;
    },
  };
}

/**
 * A connection that ends (or is reset) before any answer: most often a pooled one the upstream had already
 * closed, its idle timeout ending as the request went out.
 */
const CLOSED_BEFORE_ANSWER = new Set(['UND_ERR_SOCKET', 'ECONNRESET']);

/**
 * One upstream HTTP call with connect/read timeouts, optional proxy and abort; maps failures to upstream errors.
 * A request whose connection closes before any answer is sent once more (on a new connection) when its body can
 * be sent again: a kept-alive connection the upstream closed is not the user's failure.
 */
export async function upstreamRequest(
  url: string,
  init: { method: string; headers?: Record<string, string>; body?: string | Buffer | Readable },
  options: HttpOptions,
): Promise<UpstreamResponse> {
  try {
    if (options.publicOnly) assertPublicUrl(url);
    const send = () =>
      request(url, {
        method: init.method,
        headers: init.headers,
        body: init.body,
        signal: options.signal,
        dispatcher: dispatcherFor(options.proxy, options.connectTimeoutMs, options.publicOnly ?? false),
        headersTimeout: options.readTimeoutMs,
        bodyTimeout: options.readTimeoutMs,
      });
    const replayable = init.body === undefined || typeof init.body === 'string' || Buffer.isBuffer(init.body);
    const res = await send().catch((e: unknown) => {
      const code = (e as { code?: string }).code ?? '';
      if (!replayable || options.signal?.aborted || !CLOSED_BEFORE_ANSWER.has(code)) throw e;
      return send();
    });
    const body = bodyReads(res.body, options.signal);
    const text = async () => {
      let out = '';
      const dec = new TextDecoder();
      for await (const c of body) out += dec.decode(c, { stream: true });
      return out + dec.decode();
    };
    return {
      status: res.statusCode,
      headers: res.headers,
      body,
      text,
      json: async <T>() => JSON.parse(await text()) as T,
    };
  } catch (e) {
    throw mapError(e, options.signal);
  }
}

/** Throws UpstreamError for a non-2xx response (reading its body as the detail). */
export async function ensureOk(res: UpstreamResponse): Promise<UpstreamResponse> {
  if (res.status >= 200 && res.status < 300) return res;
  throw new UpstreamError(res.status, (await res.text().catch(() => '')).slice(0, 2000));
}

/** Joins a base URL (with or without trailing slash) and a relative path. */
export function joinUrl(base: string, path: string): string {
  return `${base.endsWith('/') ? base : `${base}/`}${path.replace(/^\//, '')}`;
}
