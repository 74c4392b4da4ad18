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

const DEFAULT_PORTS: Record<string, string> = { 'http:': '80', 'https:': '443' };
/** `scheme://host[:port]`, the host optionally `*.`-prefixed (any subdomain), as in a CSP source. */
const ORIGIN_PATTERN = /^(https?:)\/\/(\*\.)?([^/:*\s]+)(?::(\d+))?\/?$/i;

/** Whether a URL is on an origin of the list (`browser_upload_origins` syntax). */
function onListedOrigin(url: URL, origins: readonly string[]): boolean {
  const port = url.port || DEFAULT_PORTS[url.protocol];
  const host = url.hostname.toLowerCase();
  return origins.some((origin) => {
    const m = ORIGIN_PATTERN.exec(origin.trim());
    if (!m || m[1]!.toLowerCase() !== url.protocol || (m[4] ?? DEFAULT_PORTS[url.protocol]) !== port)
      return false;
    const listed = m[3]!.toLowerCase();
    return m[2] ? host.endsWith(`.${listed}`) : host === listed;
  });
}

/**
 * The URL of a file the upstream handed back, parsed, if the server may contact it: on the upstream's own origin or
 * on one of `blobOrigins` (the configured blob hosts). The server makes these requests, so a URL elsewhere would
 * let whoever controls the upstream's answers make it reach any host it can (internal services included).
 */
function allowedFileUrl(
  target: UpstreamTarget,
  url: string,
  blobOrigins: readonly string[],
  what: string,
): URL {
  const parsed = httpUrl(url);
  if (parsed.origin !== new URL(target.baseUrl).origin && !onListedOrigin(parsed, blobOrigins))
    throw new UpstreamError(
      null,
      `the upstream returned ${what} URL on a host that is not allowed: ${parsed.host}`,
    );
  return parsed;
}

/**
 * PUTs bytes to a signed blob URL the upstream handed out (Azure style), only on the upstream's own origin or one
 * of `blobOrigins`. Deliberately not `webClient().call`: the blob host is not the upstream, so it never gets the
 * account's token (no Authorization header, no cookies).
 */
export async function putToBlob(
  target: UpstreamTarget,
  uploadUrl: string,
  blobOrigins: readonly string[],
  body: Readable | Buffer,
  size: number,
  contentType: string,
): Promise<void> {
  let url: URL;
  try {
    url = allowedFileUrl(target, uploadUrl, blobOrigins, 'an upload');
  } catch (e) {
    // Nothing will read the body: release its file.
    if (!Buffer.isBuffer(body)) body.destroy();
    throw e;
  }
  await ensureOk(
    await upstreamRequest(
      url.toString(),
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
 * Opens an upstream download URL for streaming, only on the upstream's own origin or one of `blobOrigins`. The
 * token goes only to URLs under the upstream's own base (`…/backend-api/…`); signed blob URLs get no credentials.
 */
export async function openDownload(
  target: UpstreamTarget,
  downloadUrl: string,
  blobOrigins: readonly string[],
  signal?: AbortSignal,
): Promise<UpstreamResponse> {
  const url = allowedFileUrl(target, downloadUrl, blobOrigins, 'a download').toString();
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
