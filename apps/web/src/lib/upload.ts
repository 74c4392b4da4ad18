import { NetworkError, networkFailure, settleResponse } from './api-client';
import type { RequestOptions } from './api-client';

export interface ProgressOptions {
  /** Fraction of the bytes sent so far, 0..1. */
  onProgress?: (fraction: number) => void;
  signal?: AbortSignal;
}

interface XhrRequest extends ProgressOptions {
  method: 'POST' | 'PUT';
  url: string;
  body: XMLHttpRequestBodyInit;
  headers?: Record<string, string>;
}

function abortError(): DOMException {
  return new DOMException('The upload was cancelled', 'AbortError');
}

/** True for the error a cancelled upload rejects with. */
export function isAbortError(error: unknown): boolean {
  return error instanceof DOMException && error.name === 'AbortError';
}

/**
 * One XMLHttpRequest (fetch has no upload progress). Resolves with the status and body text of any answer;
 * status 0 means no answer (network, CORS or CSP failure). Never sends credentials to another origin.
 */
function sendXhr(request: XhrRequest): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    if (request.signal?.aborted) {
      reject(abortError());
      return;
    }
    const xhr = new XMLHttpRequest();
    xhr.open(request.method, request.url);
    xhr.withCredentials = false;
    for (const [name, value] of Object.entries(request.headers ?? {})) xhr.setRequestHeader(name, value);
    const onAbort = () => xhr.abort();
    request.signal?.addEventListener('abort', onAbort, { once: true });
    const done = () => request.signal?.removeEventListener('abort', onAbort);
    xhr.upload.addEventListener('progress', (event) => {
      if (event.lengthComputable && event.total > 0) request.onProgress?.(event.loaded / event.total);
    });
    xhr.addEventListener('load', () => {
      done();
      request.onProgress?.(1);
      resolve({ status: xhr.status, text: typeof xhr.responseText === 'string' ? xhr.responseText : '' });
    });
    xhr.addEventListener('error', () => {
      done();
      resolve({ status: 0, text: '' });
    });
    xhr.addEventListener('abort', () => {
      done();
      reject(abortError());
    });
    xhr.send(request.body);
  });
}

/**
 * A multipart upload to our own server with progress: the envelope is unwrapped and failures become the same
 * reported ApiError / NetworkError as with the API client.
 */
export async function postFormWithProgress<T>(
  url: string,
  form: FormData,
  options: ProgressOptions & Pick<RequestOptions, 'silent'> = {},
): Promise<T> {
  const { status, text } = await sendXhr({
    method: 'POST',
    url,
    body: form,
    headers: { Accept: 'application/json' },
    onProgress: options.onProgress,
    signal: options.signal,
  });
  if (status === 0) throw networkFailure('Request Error', url, { silent: options.silent });
  return settleResponse<T>(status, text, url, { silent: options.silent });
}

/**
 * PUTs a file to an upstream signed blob URL (Azure BlockBlob): only the blob headers, never cookies or an
 * Authorization header. Anything but 201 is a NetworkError (status 0: the host could not be reached).
 */
export async function putToSignedUrl(url: string, file: Blob, options: ProgressOptions = {}): Promise<void> {
  const { status } = await sendXhr({
    method: 'PUT',
    url,
    body: file,
    headers: { 'x-ms-blob-type': 'BlockBlob', 'x-ms-version': '2020-04-08' },
    onProgress: options.onProgress,
    signal: options.signal,
  });
  // The signed part of the URL stays out of error messages.
  const shown = url.split('?')[0] ?? '';
  if (status !== 201)
    throw new NetworkError(status ? `HTTP ${status}` : 'Upload host unreachable', shown, status || null);
}
