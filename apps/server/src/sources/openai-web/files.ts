import type { Readable } from 'node:stream';
import { UpstreamError } from '../errors';
import { ensureOk, httpOptions, upstreamRequest } from '../http';
import type { UpstreamResponse } from '../http';
import type { UpstreamTarget } from '../types';
import { webHeaders } from './client';

/** Blob uploads and downloads may pause longer than an API call between chunks. */
const LARGE_FILE_READ_TIMEOUT_MS = 60_000;

function httpUrl(url: string): URL {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new UpstreamError(null, 'the upstream returned an invalid URL');
  }
  if (parsed.protocol !== 'https:' && parsed.protocol !== 'http:')
    throw new UpstreamError(null, 'the upstream returned a non-HTTP URL');
  return parsed;
}

/**
 * PUTs bytes to a signed blob URL the upstream handed out (Azure style). Deliberately not `webClient().call`: the
 * blob host is not the upstream, so it never gets the account's token (no Authorization header, no cookies).
 */
export async function putToBlob(
  target: UpstreamTarget,
  uploadUrl: string,
  body: Readable | Buffer,
  size: number,
  contentType: string,
): Promise<void> {
  await ensureOk(
    await upstreamRequest(
      httpUrl(uploadUrl).toString(),
      {
        method: 'PUT',
        headers: {
          'x-ms-blob-type': 'BlockBlob',
          'x-ms-version': '2020-04-08',
          'content-type': contentType,
          'content-length': String(size),
        },
        body,
      },
      httpOptions(target, { readTimeoutMs: Math.max(target.readTimeoutMs, LARGE_FILE_READ_TIMEOUT_MS) }),
    ),
  );
}

/**
 * Opens an upstream download URL for streaming. The token goes only to URLs under the upstream's own base
 * (`…/backend-api/…`); signed blob URLs get no credentials.
 */
export async function openDownload(
  target: UpstreamTarget,
  downloadUrl: string,
  signal?: AbortSignal,
): Promise<UpstreamResponse> {
  const url = httpUrl(downloadUrl).toString();
  const base = target.baseUrl.endsWith('/') ? target.baseUrl : `${target.baseUrl}/`;
  const headers = url.startsWith(base) ? webHeaders(target, { accept: '*/*' }) : { accept: '*/*' };
  return ensureOk(
    await upstreamRequest(
      url,
      { method: 'GET', headers },
      httpOptions(target, {
        signal,
        readTimeoutMs: Math.max(target.readTimeoutMs, LARGE_FILE_READ_TIMEOUT_MS),
      }),
    ),
  );
}
