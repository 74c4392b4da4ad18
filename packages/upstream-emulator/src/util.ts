import { createHash, randomBytes } from 'node:crypto';
import type { ServerResponse } from 'node:http';

/** 32-bit seed derived from a string: the same prompt always gives the same reply. */
export function seedOf(text: string): number {
  return createHash('sha256').update(text).digest().readUInt32BE(0);
}

/** Small deterministic PRNG (mulberry32) returning floats in [0, 1). */
export function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export function pick<T>(rand: () => number, items: readonly T[]): T {
  const item = items[Math.floor(rand() * items.length)];
  if (item === undefined) throw new Error('pick from an empty list');
  return item;
}

/** A UUID-shaped id derived from a seed string (version 4 layout). */
export function deterministicUuid(seed: string): string {
  const h = createHash('sha256').update(seed).digest('hex');
  const variant = ((parseInt(h.charAt(16), 16) & 0x3) | 0x8).toString(16);
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-${variant}${h.slice(17, 20)}-${h.slice(20, 32)}`;
}

const ALNUM = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

function alnum(bytes: Buffer, length: number): string {
  let out = '';
  for (let i = 0; i < length; i++) out += ALNUM.charAt((bytes[i % bytes.length] ?? 0) % ALNUM.length);
  return out;
}

/** An OpenAI file id (`file-` + 24 alphanumerics); deterministic when a seed is given. */
export function newFileId(seed?: string): string {
  const bytes = seed === undefined ? randomBytes(24) : createHash('sha256').update(seed).digest();
  return `file-${alnum(bytes, 24)}`;
}

/** A chat completion id (`chatcmpl-` + 29 alphanumerics). */
export function newCompletionId(): string {
  return `chatcmpl-${alnum(randomBytes(29), 29)}`;
}

export function randomHex(bytes: number): string {
  return randomBytes(bytes).toString('hex');
}

/** Epoch seconds as a float, like the upstream's `create_time`. */
export function epochSeconds(ms: number = Date.now()): number {
  return ms / 1000;
}

/** ISO 8601 with microseconds and an explicit offset, as the upstream's conversation list returns it. */
export function isoTime(ms: number): string {
  const iso = new Date(ms).toISOString(); // 2024-01-01T00:00:00.123Z
  return `${iso.slice(0, 23)}000+00:00`;
}

/** Whitespace-separated word count: the emulator's token count. */
export function countWords(text: string): number {
  const trimmed = text.trim();
  return trimmed === '' ? 0 : trimmed.split(/\s+/).length;
}

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export function sendJson(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  if (res.headersSent || res.destroyed) return;
  const text = JSON.stringify(body);
  res.writeHead(status, {
    'content-type': 'application/json; charset=utf-8',
    'content-length': Buffer.byteLength(text),
    ...headers,
  });
  res.end(text);
}

/** Sends a caller-provided raw body: JSON content type when it parses as JSON, plain text otherwise. */
export function sendRaw(res: ServerResponse, status: number, body: string): void {
  if (res.headersSent || res.destroyed) return;
  let type = 'text/plain; charset=utf-8';
  try {
    JSON.parse(body);
    type = 'application/json; charset=utf-8';
  } catch {
    // not JSON: keep text/plain
  }
  res.writeHead(status, { 'content-type': type, 'content-length': Buffer.byteLength(body) });
  res.end(body);
}

/** Resolves true after `ms`, or false as soon as `signal` aborts. */
export function sleep(ms: number, signal: AbortSignal): Promise<boolean> {
  if (signal.aborted) return Promise.resolve(false);
  if (ms <= 0) return new Promise((resolve) => setImmediate(() => resolve(!signal.aborted)));
  return new Promise((resolve) => {
    const onAbort = (): void => {
      clearTimeout(timer);
      resolve(false);
    };
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve(true);
    }, ms);
    signal.addEventListener('abort', onAbort, { once: true });
  });
}

/** Resolves when `signal` aborts (used to hold a stalled stream open). */
export function untilAborted(signal: AbortSignal): Promise<void> {
  if (signal.aborted) return Promise.resolve();
  return new Promise((resolve) => signal.addEventListener('abort', () => resolve(), { once: true }));
}
