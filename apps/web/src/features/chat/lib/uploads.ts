import { IMAGE_MIME_TYPES, MAX_IMAGES_PER_ASK, isGpt4Model } from '@cc/contracts';
import type {
  AskRequestInput,
  ChatSource,
  FileUseCase,
  StartUploadRequest,
  StartUploadResponse,
  UploadedFileInfo,
  UserRead,
} from '@cc/contracts';
import { ApiError, NetworkError } from '../../../lib/api-client';
import { formatBytes } from '../../../lib/format';
import type { ProgressOptions } from '../../../lib/upload';

/** The calls one upload may make; the hook passes the real ones, tests a fake. */
export interface UploadTransport {
  start: (request: StartUploadRequest) => Promise<StartUploadResponse>;
  /** PUT the bytes to the upstream's signed URL (browser strategy). */
  putBlob: (url: string, file: Blob, options: ProgressOptions) => Promise<void>;
  complete: (id: string) => Promise<UploadedFileInfo>;
  /** Multipart upload of the bytes to our server (server strategy). */
  uploadLocal: (file: File, useCase: FileUseCase, options: ProgressOptions) => Promise<UploadedFileInfo>;
  /** The server sends its copy on to the upstream. */
  relay: (id: string) => Promise<UploadedFileInfo>;
}

/** What the user may upload (GET /api/user/me already combines the user's flags with the global switches). */
export interface UploadPermissions {
  attachments: boolean;
  images: boolean;
}

/** The server's answer to the last upload-start: how it uploads and how large a file it takes. */
export interface UploadLimits {
  strategy: StartUploadResponse['strategy'];
  fileMaxSize: number;
}

/** A message for the user: an i18n key and its values. */
export interface UploadProblem {
  key: string;
  values?: Record<string, string | number>;
}

export type UploadKind = 'image' | 'file';
export type UploadStatus = 'uploading' | 'done' | 'error';

export interface UploadItem {
  key: string;
  file: File;
  kind: UploadKind;
  useCase: FileUseCase;
  /** Natural size of an image as the browser read it. */
  width: number | null;
  height: number | null;
  /** Object URL of the local bytes (image thumbnails), revoked by the owner. */
  previewUrl: string | null;
  status: UploadStatus;
  /** 0..1 */
  progress: number;
  problem: UploadProblem | null;
  info: UploadedFileInfo | null;
}

/** Files per question (the AskRequest contract's limit on attachments). */
export const MAX_FILES_PER_ASK = 20;

/** Images the upstream takes as image parts; other image types are sent as plain files. */
export function isImageFile(file: Pick<File, 'type'>): boolean {
  return (IMAGE_MIME_TYPES as readonly string[]).includes(file.type.toLowerCase());
}

/** What the user may upload in this conversation: only openai_web GPT-4 models take files (as the server). */
export function uploadPermissions(
  user: UserRead | undefined,
  source: ChatSource,
  model: string | null | undefined,
): UploadPermissions {
  const web = user?.setting?.openai_web;
  if (source !== 'openai_web' || !model || !isGpt4Model(model) || !web?.allow_to_use)
    return { attachments: false, images: false };
  return { attachments: web.allow_uploading_attachments, images: web.allow_uploading_multimodal_images };
}

export function canUpload(permissions: UploadPermissions): boolean {
  return permissions.attachments || permissions.images;
}

/** Images go as image parts when allowed, else (like any other file) as attachments when those are allowed. */
export function classifyFile(
  file: Pick<File, 'type'>,
  permissions: UploadPermissions,
): { kind: UploadKind; useCase: FileUseCase } | null {
  if (isImageFile(file) && permissions.images) return { kind: 'image', useCase: 'multimodal' };
  if (permissions.attachments) return { kind: 'file', useCase: 'my_files' };
  return null;
}

/** A size the server (or the upstream behind it) would refuse, known once the server told its limit. */
export function sizeProblem(size: number, limits: UploadLimits | null): UploadProblem | null {
  if (!limits || size <= limits.fileMaxSize) return null;
  return { key: 'upload.tooLarge', values: { max: formatBytes(limits.fileMaxSize) } };
}

export interface Admission {
  accepted: { file: File; kind: UploadKind; useCase: FileUseCase }[];
  rejected: { file: File; problem: UploadProblem }[];
}

/**
 * Which new files join the list: upload permission, not empty, at most {@link MAX_IMAGES_PER_ASK} images and
 * {@link MAX_FILES_PER_ASK} files per question (failed items do not count), and a size the server takes.
 */
export function admitFiles(
  current: readonly UploadItem[],
  incoming: readonly File[],
  permissions: UploadPermissions,
  limits: UploadLimits | null,
): Admission {
  const live = current.filter((item) => item.status !== 'error');
  let images = live.filter((item) => item.kind === 'image').length;
  let total = live.length;
  const result: Admission = { accepted: [], rejected: [] };
  for (const file of incoming) {
    const kind = classifyFile(file, permissions);
    if (!kind) {
      result.rejected.push({ file, problem: { key: 'errors.uploadingNotAllowed' } });
      continue;
    }
    if (file.size === 0) {
      result.rejected.push({ file, problem: { key: 'upload.emptyFile' } });
      continue;
    }
    if (kind.kind === 'image' && images >= MAX_IMAGES_PER_ASK) {
      result.rejected.push({ file, problem: { key: 'validation.tooManyImages' } });
      continue;
    }
    if (total >= MAX_FILES_PER_ASK) {
      result.rejected.push({
        file,
        problem: { key: 'upload.tooManyFiles', values: { max: MAX_FILES_PER_ASK } },
      });
      continue;
    }
    const tooLarge = sizeProblem(file.size, limits);
    if (tooLarge) {
      result.rejected.push({ file, problem: tooLarge });
      continue;
    }
    if (kind.kind === 'image') images += 1;
    total += 1;
    result.accepted.push({ file, ...kind });
  }
  return result;
}

/** The refused files of one drop or paste that share a problem: told in one notice, not one per file. */
export interface RejectionGroup {
  problem: UploadProblem;
  files: File[];
}

/** Groups refused files by problem (same key and values), in the order the problems first occur. */
export function groupRejections(rejected: Admission['rejected']): RejectionGroup[] {
  const groups = new Map<string, RejectionGroup>();
  for (const { file, problem } of rejected) {
    const id = JSON.stringify([problem.key, problem.values ?? null]);
    const group = groups.get(id);
    if (group) group.files.push(file);
    else groups.set(id, { problem, files: [file] });
  }
  return [...groups.values()];
}

export class UploadFailure extends Error {
  override readonly name = 'UploadFailure';
  constructor(readonly problem: UploadProblem) {
    super(problem.key);
  }
}

export interface RunUploadOptions {
  transport: UploadTransport;
  /** Called with the server's strategy and size limit as soon as it answered. */
  onLimits?: (limits: UploadLimits) => void;
  onProgress?: (fraction: number) => void;
  signal?: AbortSignal;
}

/** The share of the progress bar the byte transfer takes; the last step (complete / relay) fills the rest. */
const TRANSFER_SHARE = 0.95;

/**
 * One file to the upstream (SPEC §4): upload-start, then either PUT to the signed URL + upload-complete
 * (browser strategy) or the multipart upload to the server + relay (server strategy). Resolves with the
 * completed file, which has its upstream `file_id`.
 */
export async function runUpload(
  item: Pick<UploadItem, 'file' | 'useCase' | 'width' | 'height'>,
  options: RunUploadOptions,
): Promise<UploadedFileInfo> {
  const { transport, signal } = options;
  const progress: ProgressOptions = {
    signal,
    onProgress: (fraction) => options.onProgress?.(fraction * TRANSFER_SHARE),
  };
  const checkAborted = () => {
    if (signal?.aborted) throw new DOMException('The upload was cancelled', 'AbortError');
  };
  const started = await transport.start({
    file_name: item.file.name || 'file',
    file_size: item.file.size,
    width: item.width,
    height: item.height,
    mime_type: item.file.type || null,
    use_case: item.useCase,
  });
  options.onLimits?.({ strategy: started.strategy, fileMaxSize: started.file_max_size });
  checkAborted();
  let done: UploadedFileInfo;
  const direct = started.upload_file_info;
  if (direct) {
    const url = direct.openai_web_info?.upload_url;
    if (!url) throw new UploadFailure({ key: 'upload.noUploadUrl' });
    await transport.putBlob(url, item.file, progress);
    checkAborted();
    done = await transport.complete(direct.id);
  } else {
    const tooLarge = item.file.size > started.file_max_size;
    if (tooLarge) {
      throw new UploadFailure({
        key: 'upload.tooLarge',
        values: { max: formatBytes(started.file_max_size) },
      });
    }
    const local = await transport.uploadLocal(item.file, item.useCase, progress);
    checkAborted();
    done = await transport.relay(local.id);
  }
  if (!done.openai_web_info?.file_id) throw new UploadFailure({ key: 'upload.noFileId' });
  options.onProgress?.(1);
  return done;
}

/** A failed upload in words the user can act on. */
export function describeUploadError(error: unknown): UploadProblem {
  if (error instanceof UploadFailure) return error.problem;
  if (error instanceof ApiError) {
    if (error.code === 413) {
      const max = (error.result as { max_size?: unknown } | null)?.max_size;
      return typeof max === 'number'
        ? { key: 'upload.tooLarge', values: { max: formatBytes(max) } }
        : { key: 'errors.fileTooLarge' };
    }
    return { key: error.messageKey };
  }
  if (error instanceof NetworkError) {
    if (!error.url.startsWith('/')) {
      return error.status
        ? { key: 'upload.blobFailed', values: { status: error.status } }
        : { key: 'upload.blobUnreachable' };
    }
    return { key: 'errors.requestError' };
  }
  return { key: 'upload.failed' };
}

export type AskFiles = Pick<AskRequestInput, 'openai_web_attachments' | 'openai_web_multimodal_image_parts'>;

/**
 * The finished uploads as AskRequest fields: every file is an attachment (images too, when attachments are
 * allowed), images are also image parts `file-service://<file_id>`.
 */
export function toAskFiles(items: readonly UploadItem[], permissions: UploadPermissions): AskFiles {
  const attachments: NonNullable<AskFiles['openai_web_attachments']> = [];
  const images: NonNullable<AskFiles['openai_web_multimodal_image_parts']> = [];
  for (const item of items) {
    const fileId = item.info?.openai_web_info?.file_id;
    if (item.status !== 'done' || !item.info || !fileId) continue;
    const width = item.info.extra_info?.width ?? item.width;
    const height = item.info.extra_info?.height ?? item.height;
    const size = item.info.size || item.file.size;
    if (item.kind === 'file' || permissions.attachments) {
      attachments.push({
        name: item.info.original_filename || item.file.name,
        id: fileId,
        size,
        mime_type: item.info.content_type ?? (item.file.type || null),
        ...(item.kind === 'image' ? { width, height } : {}),
      });
    }
    if (item.kind === 'image') {
      images.push({
        asset_pointer: `file-service://${fileId}`,
        size_bytes: size,
        width: width ?? 0,
        height: height ?? 0,
      });
    }
  }
  return {
    openai_web_attachments: attachments.length ? attachments : null,
    openai_web_multimodal_image_parts: images.length ? images.slice(0, MAX_IMAGES_PER_ASK) : null,
  };
}

export function hasAskFiles(files: AskFiles | undefined): boolean {
  return !!(files?.openai_web_attachments?.length || files?.openai_web_multimodal_image_parts?.length);
}
