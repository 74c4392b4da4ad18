import { randomUUID } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { stat, unlink } from 'node:fs/promises';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { imageSizeFromFile } from 'image-size/fromFile';
import { ERROR_DETAILS, IMAGE_MIME_TYPES, withoutInvisible } from '@cc/contracts';
import type { FileUseCase, StartUploadRequest, StartUploadResponse } from '@cc/contracts';
import type { AppContext } from '../app-context';
import { ensurePrivateDir } from '../config/bootstrap';
import type { FileRow, UserRow } from '../db/schema';
import { fail } from '../errors/app-error';
import { canAccessFile } from '../policies/file.policy';
import { joinSettings } from '../presenters/user.presenter';
import { fileRepository } from '../repositories/file.repository';
import { messageRepository } from '../repositories/message.repository';
import { UpstreamError } from '../sources/errors';
import { webClient } from '../sources/openai-web/client';
import type { WebClient } from '../sources/openai-web/client';
import { openDownload, putToBlob } from '../sources/openai-web/files';
import { uploadsDir } from './file-storage';
import { getUser } from './user.service';

/** image-size type → the MIME type we store and serve; other types are plain files. */
const IMAGE_TYPES: Record<string, (typeof IMAGE_MIME_TYPES)[number]> = {
  png: 'image/png',
  jpg: 'image/jpeg',
  gif: 'image/gif',
  webp: 'image/webp',
};
const FALLBACK_TYPE = 'application/octet-stream';
const MIME_PATTERN = /^[a-z0-9][a-z0-9!#$&^_.+-]*\/[a-z0-9][a-z0-9!#$&^_.+-]*$/i;

/**
 * The client's name for display only: no directories, no control or invisible format characters (a right-to-left
 * override makes "x<RLO>gnp.exe" read "xexe.png"), at most 255 characters.
 */
export function sanitizeFilename(name: string): string {
  const base = name.split(/[/\\]/).pop() ?? '';
  const clean = withoutInvisible(base).trim();
  return [...clean].slice(0, 255).join('') || 'file';
}

function cleanMimeType(type: string | null | undefined): string | null {
  if (!type) return null;
  const bare = type.split(';')[0]!.trim().toLowerCase();
  return MIME_PATTERN.test(bare) && bare.length <= 255 ? bare : null;
}

/**
 * The client's type for an upload whose bytes are not a known image: an image type is a claim the bytes did not
 * bear out (HTML as "image/png"), so it becomes opaque bytes; other types are kept for display.
 */
function declaredContentType(type: string): string {
  const bare = cleanMimeType(type);
  return bare && !bare.startsWith('image/') ? bare : FALLBACK_TYPE;
}

/** The type a stored or relayed file is served with: a known raster image type, else opaque bytes. */
export function servedContentType(type: string | null | undefined): string {
  const bare = cleanMimeType(type);
  return bare && (IMAGE_MIME_TYPES as readonly string[]).includes(bare) ? bare : FALLBACK_TYPE;
}

/**
 * The user's upload flags and the global switches: images (`multimodal`) and attachments are allowed
 * separately. Uploading also needs the web source itself.
 */
export async function assertUploadAllowed(
  ctx: AppContext,
  userId: number,
  useCase: FileUseCase,
): Promise<void> {
  const config = ctx.runtime.current().openai_web;
  const loaded = await getUser(ctx, userId);
  const web = joinSettings(loaded.setting, loaded.counters).openai_web;
  if (!config.enabled || !web.allow_to_use) throw fail.uploadingNotAllowed(ERROR_DETAILS.webSourceNotAllowed);
  if (useCase === 'multimodal') {
    if (!config.enable_uploading_multimodal_images || !web.allow_uploading_multimodal_images)
      throw fail.uploadingNotAllowed(ERROR_DETAILS.imagesNotAllowed);
  } else if (!config.enable_uploading_attachments || !web.allow_uploading_attachments) {
    throw fail.uploadingNotAllowed(ERROR_DETAILS.attachmentsNotAllowed);
  }
}

/** Loads a file the actor may act on: unknown → 404, someone else's → 10403. */
export async function getFileFor(ctx: AppContext, actor: UserRow, id: string): Promise<FileRow> {
  const row = await fileRepository(ctx.dbHandle.db).findById(id);
  if (!row) throw fail.notFound(ERROR_DETAILS.fileNotFound);
  if (!canAccessFile(actor, row)) throw fail.accessDenied();
  return row;
}

export interface StartUploadInput {
  /** The logged-in user. */
  actor: UserRow;
  request: StartUploadRequest;
}

export interface StartUploadResult {
  strategy: StartUploadResponse['strategy'];
  /** Largest file the strategy can upload (see {@link uploadMaxSize}). */
  fileMaxSize: number;
  /** The upstream file to PUT the bytes to; null = upload to the server first. */
  file: FileRow | null;
}

/** The web account takes files of at most 512 MB: it refuses to create a larger one. */
export const OPENAI_WEB_MAX_FILE_SIZE = 512 * 1024 * 1024;

/**
 * Largest file an upload may have: the upstream's limit, and the server's own too when every file goes through it.
 * (`browser_upload_when_file_size_exceed` sends what the server would refuse directly to the upstream.)
 */
export function uploadMaxSize(ctx: AppContext): number {
  const strategy = ctx.runtime.current().openai_web.file_upload_strategy;
  return strategy === 'server_upload_only'
    ? Math.min(ctx.config.data.max_file_upload_size, OPENAI_WEB_MAX_FILE_SIZE)
    : OPENAI_WEB_MAX_FILE_SIZE;
}

/** The upstream's "file too large" answer to a file-create: 413, or a 4xx that says so. */
function isTooLargeRefusal(e: unknown): boolean {
  if (!(e instanceof UpstreamError) || e.status === null || e.status < 400 || e.status >= 500) return false;
  return e.status === 413 || /too (large|big)|exceeds?\b.*\b(size|limit|maximum)/i.test(e.body);
}

/** Creates the upstream file for a size already checked; its refusal of the size is `fileTooLarge` with `maxSize`. */
async function createUpstreamFile(
  client: WebClient,
  body: { file_name: string; file_size: number; use_case: FileUseCase },
  maxSize: number,
): Promise<{ file_id: string; upload_url: string }> {
  let created: Awaited<ReturnType<WebClient['createFile']>>;
  try {
    created = await client.createFile(body);
  } catch (e) {
    if (isTooLargeRefusal(e)) throw fail.fileTooLarge({ max_size: maxSize });
    throw e;
  }
  if (!created.file_id || !created.upload_url) throw fail.upstreamError(ERROR_DETAILS.noUploadUrl);
  return { file_id: created.file_id, upload_url: created.upload_url };
}

/**
 * Step one of every upload. A file over {@link uploadMaxSize} is refused before any bytes are sent. Under
 * `server_upload_only` (and `browser_upload_when_file_size_exceed` for a file the server accepts) the client sends
 * the bytes to the server; otherwise the upstream file is created here and the browser PUTs the bytes to its URL.
 */
export async function startUpload(ctx: AppContext, input: StartUploadInput): Promise<StartUploadResult> {
  const { actor, request } = input;
  await assertUploadAllowed(ctx, actor.id, request.use_case);
  const strategy = ctx.runtime.current().openai_web.file_upload_strategy;
  const fileMaxSize = uploadMaxSize(ctx);
  if (request.file_size > fileMaxSize) throw fail.fileTooLarge({ max_size: fileMaxSize });
  const direct =
    strategy === 'browser_upload_only' ||
    (strategy === 'browser_upload_when_file_size_exceed' &&
      request.file_size > ctx.config.data.max_file_upload_size);
  if (!direct) return { strategy, fileMaxSize, file: null };
  const name = sanitizeFilename(request.file_name);
  const created = await createUpstreamFile(
    webClient(ctx.upstream.webTarget()),
    { file_name: name, file_size: request.file_size, use_case: request.use_case },
    fileMaxSize,
  );
  const file = await fileRepository(ctx.dbHandle.db).insert({
    id: randomUUID(),
    original_filename: name,
    size: request.file_size,
    content_type: cleanMimeType(request.mime_type),
    storage_name: null,
    uploader_id: actor.id,
    upload_time: new Date().toISOString(),
    width: request.width ?? null,
    height: request.height ?? null,
    use_case: request.use_case,
    openai_web_file_id: created.file_id,
    openai_web_upload_url: created.upload_url,
    openai_web_download_url: null,
  });
  return { strategy, fileMaxSize, file };
}

function isComplete(row: FileRow): boolean {
  return !!row.openai_web_file_id && !row.openai_web_upload_url && !!row.openai_web_download_url;
}

/** After the browser's PUT: tells the upstream, stores the download URL and clears the upload URL. */
export async function completeUpload(ctx: AppContext, actor: UserRow, id: string): Promise<FileRow> {
  const row = await getFileFor(ctx, actor, id);
  if (!row.openai_web_file_id) throw fail.invalidParams(ERROR_DETAILS.notBrowserUpload);
  if (isComplete(row)) return row;
  const done = await webClient(ctx.upstream.webTarget()).markFileUploaded(row.openai_web_file_id);
  return (
    (await fileRepository(ctx.dbHandle.db).update(row.id, {
      openai_web_upload_url: null,
      openai_web_download_url: done.download_url ?? null,
    })) ?? row
  );
}

export interface LocalUploadInput {
  /** The logged-in user. */
  actor: UserRow;
  /** The multipart part: its byte stream (truncated by the size limit), the client's name and type. */
  file: { stream: Readable & { truncated?: boolean }; filename: string; mimetype: string };
  /** Declared use; without it images are `multimodal`, other files `my_files`. */
  useCase?: FileUseCase;
  /**
   * Reads the rest of the request once the file's bytes are on disk, before anything is recorded: throwing refuses
   * the upload (a second file part, a form cut off after the file) and the stored bytes are removed.
   */
  restOfForm?: () => Promise<void>;
}

function discard(stream: Readable): void {
  stream.on('error', () => undefined);
  stream.resume();
}

/**
 * Stores an upload under a generated name. Larger than `max_file_upload_size` → `fileTooLarge` and nothing is
 * kept. Image dimensions come from the bytes, never from the client.
 */
export async function uploadLocalFile(ctx: AppContext, input: LocalUploadInput): Promise<FileRow> {
  const { actor, file } = input;
  if (ctx.runtime.current().openai_web.file_upload_strategy === 'browser_upload_only') {
    discard(file.stream);
    throw fail.uploadingNotAllowed(ERROR_DETAILS.serverUploadsOff);
  }
  if (input.useCase) {
    try {
      await assertUploadAllowed(ctx, actor.id, input.useCase);
    } catch (e) {
      discard(file.stream);
      throw e;
    }
  }
  const maxSize = ctx.config.data.max_file_upload_size;
  const dir = uploadsDir(ctx);
  ensurePrivateDir(dir);
  const id = randomUUID();
  const dest = path.join(dir, id);
  const remove = () => unlink(dest).catch(() => undefined);
  try {
    await pipeline(file.stream, createWriteStream(dest, { flags: 'wx', mode: 0o600 }));
  } catch (e) {
    await remove();
    if ((e as { code?: string }).code === 'FST_REQ_FILE_TOO_LARGE')
      throw fail.fileTooLarge({ max_size: maxSize });
    throw e;
  }
  try {
    if (file.stream.truncated) throw fail.fileTooLarge({ max_size: maxSize });
    await input.restOfForm?.();
    const { size } = await stat(dest);
    const image = await imageSizeFromFile(dest).catch(() => null);
    const imageType = image?.type ? IMAGE_TYPES[image.type] : undefined;
    const useCase = input.useCase ?? (imageType ? 'multimodal' : 'my_files');
    if (!input.useCase) await assertUploadAllowed(ctx, actor.id, useCase);
    if (useCase === 'multimodal' && !imageType) throw fail.invalidParams(ERROR_DETAILS.imageTypeUnsupported);
    return await fileRepository(ctx.dbHandle.db).insert({
      id,
      original_filename: sanitizeFilename(file.filename),
      size,
      content_type: imageType ?? declaredContentType(file.mimetype),
      storage_name: id,
      uploader_id: actor.id,
      upload_time: new Date().toISOString(),
      width: imageType ? (image?.width ?? null) : null,
      height: imageType ? (image?.height ?? null) : null,
      use_case: useCase,
      openai_web_file_id: null,
      openai_web_upload_url: null,
      openai_web_download_url: null,
    });
  } catch (e) {
    await remove();
    throw e;
  }
}

/**
 * A stored file's bytes, for its uploader or a superuser, and the type to serve them with: an image type only if
 * the server read the image from the bytes at upload (it records the dimensions then), so a record from before
 * that check, with the client's image type for other bytes, is served as opaque bytes.
 */
export async function openLocalFile(
  ctx: AppContext,
  actor: UserRow,
  id: string,
): Promise<{ row: FileRow; size: number; stream: Readable; contentType: string }> {
  const row = await getFileFor(ctx, actor, id);
  if (!row.storage_name) throw fail.notFound(ERROR_DETAILS.fileNoServerCopy);
  const file = path.join(uploadsDir(ctx), row.storage_name);
  const info = await stat(file).catch(() => null);
  if (!info?.isFile()) throw fail.notFound(ERROR_DETAILS.fileMissingOnServer);
  const readAsImage = row.width !== null && row.height !== null;
  return {
    row,
    size: info.size,
    stream: createReadStream(file),
    contentType: readAsImage ? servedContentType(row.content_type) : FALLBACK_TYPE,
  };
}

/**
 * `server_upload_only` second step: the server sends its copy to the upstream (create, PUT to the blob without
 * the account's token, mark uploaded). A file already there is returned as is.
 */
export async function relayToOpenaiWeb(ctx: AppContext, actor: UserRow, id: string): Promise<FileRow> {
  const row = await getFileFor(ctx, actor, id);
  if (isComplete(row)) return row;
  if (!row.storage_name) throw fail.invalidParams(ERROR_DETAILS.fileNoServerCopy);
  const useCase = (row.use_case as FileUseCase | null) ?? 'my_files';
  await assertUploadAllowed(ctx, actor.id, useCase);
  const file = path.join(uploadsDir(ctx), row.storage_name);
  const info = await stat(file).catch(() => null);
  if (!info?.isFile()) throw fail.notFound(ERROR_DETAILS.fileMissingOnServer);
  // Kept under an older, larger limit, or larger than the upstream takes: refused before the upstream is asked.
  const maxSize = Math.min(ctx.config.data.max_file_upload_size, OPENAI_WEB_MAX_FILE_SIZE);
  if (info.size > maxSize) throw fail.fileTooLarge({ max_size: maxSize });
  const target = ctx.upstream.webTarget();
  const client = webClient(target);
  const created = await createUpstreamFile(
    client,
    { file_name: row.original_filename, file_size: info.size, use_case: useCase },
    maxSize,
  );
  const repo = fileRepository(ctx.dbHandle.db);
  await repo.update(row.id, {
    openai_web_file_id: created.file_id,
    openai_web_upload_url: created.upload_url,
    openai_web_download_url: null,
  });
  await putToBlob(
    target,
    created.upload_url,
    ctx.runtime.current().openai_web.browser_upload_origins,
    createReadStream(file),
    info.size,
    row.content_type ?? FALLBACK_TYPE,
  );
  const done = await client.markFileUploaded(created.file_id);
  return (
    (await repo.update(row.id, {
      openai_web_upload_url: null,
      openai_web_download_url: done.download_url ?? null,
    })) ?? row
  );
}

/**
 * Who may resolve an upstream file id: a superuser, its uploader, or the owner of a conversation with an assistant
 * or tool message pointing at it (DALL·E output, code-interpreter images). Only records the server made count,
 * never text a user typed: the upstream account is shared, so an id pasted into a question must grant nothing.
 */
export async function assertOpenaiFileAccess(ctx: AppContext, actor: UserRow, fileId: string): Promise<void> {
  if (actor.is_superuser === 1) return;
  const db = ctx.dbHandle.db;
  if (await fileRepository(db).isUploadedBy(fileId, actor.id)) return;
  if (await messageRepository(db).pointsToFileFor(fileId, actor.id)) return;
  throw fail.accessDenied();
}

async function upstreamDownloadUrl(ctx: AppContext, fileId: string) {
  try {
    const r = await webClient(ctx.upstream.webTarget()).fileDownload(fileId);
    if (r.status !== 'success' || !r.download_url) throw fail.notFound(ERROR_DETAILS.fileNotFound);
    return { url: r.download_url, fileName: r.file_name ?? null };
  } catch (e) {
    if (e instanceof UpstreamError && e.status === 404) throw fail.notFound(ERROR_DETAILS.fileNotFound);
    throw e;
  }
}

/** The upstream's (short-lived) download URL of a file the actor may see. */
export async function openaiWebDownloadUrl(ctx: AppContext, actor: UserRow, fileId: string): Promise<string> {
  await assertOpenaiFileAccess(ctx, actor, fileId);
  return (await upstreamDownloadUrl(ctx, fileId)).url;
}

export interface RelayedDownload {
  body: AsyncIterable<Uint8Array>;
  contentType: string;
  size: number | null;
  fileName: string;
}

async function relayDownload(
  ctx: AppContext,
  url: string,
  fileName: string,
  serverId: number | null,
  signal?: AbortSignal,
): Promise<RelayedDownload> {
  const blobOrigins = ctx.runtime.current().openai_web.browser_upload_origins;
  const res = await openDownload(ctx.upstream.webTarget(serverId), url, blobOrigins, signal);
  const length = Number(res.headers['content-length']);
  const type = res.headers['content-type'];
  return {
    body: res.body,
    contentType: servedContentType(Array.isArray(type) ? type[0] : type),
    size: Number.isFinite(length) && length >= 0 ? length : null,
    fileName,
  };
}

/**
 * The bytes of an upstream file, through the server (the browser never needs the upstream's hosts). No access
 * check: callers decide who may see the file first (`openaiWebFileContent`, share links).
 */
export async function relayOpenaiWebFile(
  ctx: AppContext,
  fileId: string,
  signal?: AbortSignal,
): Promise<RelayedDownload> {
  const { url, fileName } = await upstreamDownloadUrl(ctx, fileId);
  return relayDownload(ctx, url, sanitizeFilename(fileName ?? fileId), null, signal);
}

/** The bytes of an upstream file the actor may see. */
export async function openaiWebFileContent(
  ctx: AppContext,
  actor: UserRow,
  fileId: string,
  signal?: AbortSignal,
): Promise<RelayedDownload> {
  await assertOpenaiFileAccess(ctx, actor, fileId);
  return relayOpenaiWebFile(ctx, fileId, signal);
}

/** The bytes behind an upstream download URL (code-interpreter sandbox files). */
export function relayUpstreamUrl(
  ctx: AppContext,
  url: string,
  fileName: string,
  serverId: number | null,
  signal?: AbortSignal,
): Promise<RelayedDownload> {
  return relayDownload(ctx, url, sanitizeFilename(fileName), serverId, signal);
}

/** Upstream file ids an ask refers to (attachment ids and `scheme://<id>` image pointers). */
function askFileIds(attachments: { id: string }[], imageParts: { asset_pointer: string }[]): string[] {
  const ids = new Set(attachments.map((a) => a.id));
  for (const p of imageParts) {
    const m = /^[a-z][a-z0-9+.-]*:\/\/(.+)$/i.exec(p.asset_pointer);
    if (!m) throw fail.invalidParams(ERROR_DETAILS.assetPointerUnsupported);
    ids.add(m[1]!);
  }
  return [...ids];
}

/**
 * The files of an ask must be the asker's (uploaded by them or pointed at in a conversation of theirs): the
 * upstream account is shared, so a foreign file id would expose someone else's file.
 */
export async function assertAskFilesUsable(
  ctx: AppContext,
  actor: UserRow,
  attachments: { id: string }[],
  imageParts: { asset_pointer: string }[],
): Promise<void> {
  for (const id of askFileIds(attachments, imageParts)) {
    try {
      await assertOpenaiFileAccess(ctx, actor, id);
    } catch {
      throw fail.accessDenied(ERROR_DETAILS.fileAccessDenied);
    }
  }
}
