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

/**
 * The body with its failures mapped to upstream errors. The body's own iterator with a `catch` on each read, not a
 * generator around it: a chunk of a streamed answer passes one layer of promises fewer.
 */
function guarded(body: AsyncIterable<Uint8Array>, signal?: AbortSignal): AsyncIterable<Uint8Array> {
  let reads: AsyncIterator<Uint8Array> | null = null;
  const fail = (e: unknown): never => {
    throw mapError(e, signal);
  };
  return {
    [Symbol.asyncIterator]() {
      if (!reads) {
        const inner = body[Symbol.asyncIterator]();
        reads = {
          next: () => inner.next().catch(fail),
          return: (value?: unknown) =>
            inner.return ? inner.return(value).catch(fail) : Promise.resolve({ done: true, value }),
        };
      }
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
    const body = guarded(res.body, options.signal);
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
