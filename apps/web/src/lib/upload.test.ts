import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { ApiError, NetworkError } from './api-client';
import { isAbortError, postFormWithProgress, putToSignedUrl } from './upload';

type Listener = (event: { lengthComputable: boolean; loaded: number; total: number }) => void;

/** A scripted XMLHttpRequest: the test decides how each request ends. */
class FakeXhr {
  static last: FakeXhr | null = null;
  method = '';
  url = '';
  headers: Record<string, string> = {};
  withCredentials = true;
  body: unknown = null;
  status = 0;
  responseText = '';
  private listeners: Record<string, (() => void)[]> = {};
  private uploadListeners: Listener[] = [];
  upload = { addEventListener: (_: string, fn: Listener) => this.uploadListeners.push(fn) };

  constructor() {
    FakeXhr.last = this;
  }
  open(method: string, url: string) {
    this.method = method;
    this.url = url;
  }
  setRequestHeader(name: string, value: string) {
    this.headers[name] = value;
  }
  addEventListener(type: string, fn: () => void) {
    (this.listeners[type] ??= []).push(fn);
  }
  send(body: unknown) {
    this.body = body;
  }
  abort() {
    this.emit('abort');
  }
  progress(loaded: number, total: number) {
    for (const fn of this.uploadListeners) fn({ lengthComputable: true, loaded, total });
  }
  respond(status: number, text = '') {
    this.status = status;
    this.responseText = text;
    this.emit(status ? 'load' : 'error');
  }
  emit(type: string) {
    for (const fn of this.listeners[type] ?? []) fn();
  }
}

beforeEach(() => {
  FakeXhr.last = null;
  vi.stubGlobal('XMLHttpRequest', FakeXhr);
});
afterEach(() => vi.unstubAllGlobals());

const xhr = () => FakeXhr.last!;

describe('putToSignedUrl', () => {
  it('PUTs with the blob headers only, no credentials, and reports progress', async () => {
    const progress: number[] = [];
    const done = putToSignedUrl('https://blob.example/f?sig=s', new Blob(['abc']), {
      onProgress: (p) => progress.push(p),
    });
    expect(xhr().method).toBe('PUT');
    expect(xhr().withCredentials).toBe(false);
    expect(xhr().headers).toEqual({ 'x-ms-blob-type': 'BlockBlob', 'x-ms-version': '2020-04-08' });
    xhr().progress(1, 2);
    xhr().respond(201);
    await done;
    expect(progress).toEqual([0.5, 1]);
  });

  it('fails on anything but 201, without the signature in the error', async () => {
    const done = putToSignedUrl('https://blob.example/f?sig=secret', new Blob(['abc']));
    xhr().respond(403, '<Error/>');
    const error = (await done.catch((e: unknown) => e)) as NetworkError;
    expect(error).toBeInstanceOf(NetworkError);
    expect(error.status).toBe(403);
    expect(error.url).toBe('https://blob.example/f');
    const unreachable = putToSignedUrl('https://blob.example/f?sig=secret', new Blob(['abc']));
    xhr().respond(0);
    await expect(unreachable).rejects.toMatchObject({ status: null });
  });

  it('aborts with an AbortError', async () => {
    const controller = new AbortController();
    const done = putToSignedUrl('https://blob.example/f', new Blob(['abc']), { signal: controller.signal });
    controller.abort();
    expect(isAbortError(await done.catch((e: unknown) => e))).toBe(true);
  });
});

describe('postFormWithProgress', () => {
  it('unwraps the envelope of our server', async () => {
    const form = new FormData();
    const done = postFormWithProgress<{ id: string }>('/api/files/local/upload', form);
    expect(xhr().method).toBe('POST');
    expect(xhr().body).toBe(form);
    xhr().respond(201, JSON.stringify({ code: 201, message: 'ok', result: { id: 'x' } }));
    await expect(done).resolves.toEqual({ id: 'x' });
  });

  it('turns an error envelope into an ApiError and no answer into a NetworkError', async () => {
    const tooLarge = postFormWithProgress('/api/files/local/upload', new FormData(), { silent: true });
    xhr().respond(
      413,
      JSON.stringify({ code: 413, message: 'errors.fileTooLarge', result: { max_size: 10 } }),
    );
    await expect(tooLarge).rejects.toEqual(expect.any(ApiError));
    await tooLarge.catch((e: ApiError) => expect([e.code, e.result]).toEqual([413, { max_size: 10 }]));
    const lost = postFormWithProgress('/api/files/local/upload', new FormData(), { silent: true });
    xhr().respond(0);
    await expect(lost).rejects.toBeInstanceOf(NetworkError);
  });
});
