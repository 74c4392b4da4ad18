/**
 * The web account's file flow: `POST files` → `PUT` to the (emulated Azure) blob host → `POST files/{id}/uploaded`
 * → `GET files/{id}/download`. The blob host lives under `/blob/` on the same server and never needs the
 * account's token; every request records `hadAuthorization` so tests can prove the product did not send it.
 */
import { createHash } from 'node:crypto';
import type { RequestContext, Route } from './context';
import { param } from './context';
import { guessMimeType } from './state';
import type { StoredFile } from './state';
import { isoTime, isRecord, newFileId, randomHex, sendJson } from './util';
import { blobUrl, webError } from './web-routes';

/** Like an Azure storage account with a CORS rule for any origin: browsers may PUT the bytes directly. */
function cors(ctx: RequestContext): Record<string, string> {
  const origin = ctx.req.headers.origin;
  return origin
    ? {
        'access-control-allow-origin': origin,
        'access-control-expose-headers': 'etag,x-ms-request-id',
        vary: 'Origin',
      }
    : {};
}

function preflightBlob(ctx: RequestContext): void {
  ctx.res.writeHead(200, {
    ...cors(ctx),
    'access-control-allow-methods': 'GET,PUT,OPTIONS',
    'access-control-allow-headers': String(ctx.req.headers['access-control-request-headers'] ?? '*'),
    'access-control-max-age': '3600',
    'content-length': 0,
  });
  ctx.res.end();
}

function blobError(ctx: RequestContext, status: number, code: string, message: string): void {
  const xml =
    `<?xml version="1.0" encoding="utf-8"?><Error><Code>${code}</Code>` +
    `<Message>${message}\nRequestId:${randomHex(8)}\nTime:${new Date().toISOString()}</Message></Error>`;
  ctx.res.writeHead(status, {
    ...cors(ctx),
    'content-type': 'application/xml',
    'content-length': Buffer.byteLength(xml),
    'x-ms-error-code': code,
  });
  ctx.res.end(xml);
}

/** The largest file the web account takes (ChatGPT's 512 MB per file); a larger declared size is refused at create. */
export const MAX_FILE_BYTES = 512 * 1024 * 1024;

function createFile(ctx: RequestContext): void {
  const body = ctx.body;
  if (!isRecord(body) || typeof body['file_name'] !== 'string' || body['file_name'] === '') {
    return webError(ctx, 422, 'file_name is required');
  }
  const size = body['file_size'];
  if (typeof size !== 'number' || !Number.isInteger(size) || size < 0) {
    return webError(ctx, 422, 'file_size must be a non-negative integer');
  }
  if (size > MAX_FILE_BYTES) {
    return webError(
      ctx,
      400,
      `File is too large: ${size} bytes, the maximum is ${MAX_FILE_BYTES} bytes (512 MB)`,
    );
  }
  const useCase = typeof body['use_case'] === 'string' ? body['use_case'] : 'my_files';
  const file: StoredFile = {
    id: newFileId(),
    name: body['file_name'],
    size,
    useCase,
    mimeType: guessMimeType(body['file_name']),
    sig: randomHex(16),
    bytes: null,
    uploadedConfirmed: false,
    createdAt: Date.now(),
  };
  ctx.core.state.files.set(file.id, file);
  const expiry = encodeURIComponent(isoTime(Date.now() + 3_600_000));
  sendJson(ctx.res, 200, {
    status: 'success',
    upload_url: `${ctx.core.blobOrigin()}/blob/${file.id}?se=${expiry}&sp=cw&sv=2020-04-08&sr=b&sig=${file.sig}`,
    file_id: file.id,
  });
}

function putBlob(ctx: RequestContext): void {
  const file = ctx.core.state.files.get(param(ctx, 0));
  if (!file) return blobError(ctx, 404, 'BlobNotFound', 'The specified blob does not exist.');
  if (ctx.url.searchParams.get('sig') !== file.sig) {
    return blobError(ctx, 403, 'AuthenticationFailed', 'Server failed to authenticate the request.');
  }
  if (ctx.req.headers['x-ms-blob-type'] !== 'BlockBlob') {
    return blobError(
      ctx,
      400,
      'MissingRequiredHeader',
      'An HTTP header that is mandatory is missing: x-ms-blob-type.',
    );
  }
  file.bytes = ctx.rawBody;
  const md5 = createHash('md5').update(ctx.rawBody).digest('base64');
  ctx.res.writeHead(201, {
    ...cors(ctx),
    etag: `"0x${randomHex(8).toUpperCase()}"`,
    'last-modified': new Date().toUTCString(),
    'content-md5': md5,
    'x-ms-request-id': randomHex(16),
    'x-ms-version': '2020-04-08',
    'x-ms-request-server-encrypted': 'true',
    'content-length': 0,
  });
  ctx.res.end();
}

function getBlob(ctx: RequestContext): void {
  const file = ctx.core.state.files.get(param(ctx, 0));
  if (!file?.bytes) return blobError(ctx, 404, 'BlobNotFound', 'The specified blob does not exist.');
  ctx.res.writeHead(200, {
    ...cors(ctx),
    'content-type': file.mimeType,
    'content-length': file.bytes.length,
    'content-disposition': `attachment; filename="${file.name.replace(/"/g, '')}"`,
    'x-ms-blob-type': 'BlockBlob',
  });
  ctx.res.end(file.bytes);
}

function markUploaded(ctx: RequestContext): void {
  const file = ctx.core.state.files.get(param(ctx, 0));
  if (!file) return webError(ctx, 404, `File ${param(ctx, 0)} not found`);
  if (file.uploadedConfirmed) return webError(ctx, 400, 'File has already been marked as uploaded');
  if (!file.bytes) return webError(ctx, 400, 'File content has not been uploaded');
  file.uploadedConfirmed = true;
  sendJson(ctx.res, 200, {
    status: 'success',
    download_url: blobUrl(ctx, file.id, file.sig),
    metadata: {},
    file_name: file.name,
    creation_time: isoTime(file.createdAt),
  });
}

function downloadInfo(ctx: RequestContext): void {
  const file = ctx.core.state.files.get(param(ctx, 0));
  if (!file?.bytes) {
    return sendJson(ctx.res, 404, {
      status: 'error',
      download_url: null,
      error_code: 'file_not_found',
      error_message: `File ${param(ctx, 0)} not found`,
    });
  }
  sendJson(ctx.res, 200, {
    status: 'success',
    download_url: blobUrl(ctx, file.id, file.sig),
    metadata: {},
    file_name: file.name,
    creation_time: isoTime(file.createdAt),
  });
}

export const fileRoutes: Route[] = [
  { method: 'POST', pattern: /^\/backend-api\/files$/, handler: createFile },
  { method: 'POST', pattern: /^\/backend-api\/files\/([^/]+)\/uploaded$/, handler: markUploaded },
  { method: 'GET', pattern: /^\/backend-api\/files\/([^/]+)\/download$/, handler: downloadInfo },
];

export const blobRoutes: Route[] = [
  { method: 'OPTIONS', pattern: /^\/blob\/([^/]+)$/, handler: preflightBlob },
  { method: 'PUT', pattern: /^\/blob\/([^/]+)$/, handler: putBlob },
  { method: 'GET', pattern: /^\/blob\/([^/]+)$/, handler: getBlob },
];
