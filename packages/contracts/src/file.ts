import { z } from 'zod';
import { FileUploadStrategy } from './config';

/**
 * What an upload is for on the web source: `my_files` (attachments), `multimodal` (an image part of the
 * question) or `ace_upload` (the legacy code-interpreter upload, accepted as an attachment).
 */
export const FILE_USE_CASES = ['my_files', 'multimodal', 'ace_upload'] as const;
export const FileUseCase = z.enum(FILE_USE_CASES);
export type FileUseCase = z.infer<typeof FileUseCase>;

/** An upstream file id (`file-…`, or the newer `file_…`). */
export const OpenaiWebFileId = z.string().regex(/^file[-_][A-Za-z0-9_-]{1,128}$/);

/** `POST /api/files/openai-web/upload-start`. */
export const StartUploadRequest = z.object({
  file_name: z.string().trim().min(1).max(255),
  file_size: z.number().int().min(0),
  /** Images: natural size as the browser read it (only stored for browser uploads). */
  width: z.number().int().min(0).nullable().optional(),
  height: z.number().int().min(0).nullable().optional(),
  mime_type: z.string().max(255).nullable().optional(),
  use_case: FileUseCase,
});
export type StartUploadRequest = z.infer<typeof StartUploadRequest>;

/** The upstream side of a file. `upload_url` is cleared once the upload is complete. */
export const OpenaiWebFileInfo = z.object({
  file_id: z.string().nullable(),
  use_case: FileUseCase.nullable(),
  upload_url: z.string().nullable(),
  download_url: z.string().nullable(),
});
export type OpenaiWebFileInfo = z.infer<typeof OpenaiWebFileInfo>;

export const FileExtraInfo = z.object({
  width: z.number().int().nullable(),
  height: z.number().int().nullable(),
});

/** One uploaded file (a local copy, an upstream file, or both). */
export const UploadedFileInfo = z.object({
  id: z.string(),
  original_filename: z.string(),
  size: z.number().int(),
  /** Generated name relative to the data dir, or null when the bytes never reached the server. */
  storage_path: z.string().nullable(),
  content_type: z.string().nullable(),
  upload_time: z.string(),
  uploader_id: z.number().int(),
  openai_web_info: OpenaiWebFileInfo.nullable(),
  extra_info: FileExtraInfo.nullable(),
});
export type UploadedFileInfo = z.infer<typeof UploadedFileInfo>;

/**
 * `upload_file_info` null means "send the bytes to the server first" (`POST /api/files/local/upload`, then
 * `POST /api/files/local/upload-to-openai-web/{id}`); otherwise PUT them to its `upload_url` (headers
 * `x-ms-blob-type: BlockBlob`, `x-ms-version: 2020-04-08`) and call `upload-complete/{id}`.
 */
export const StartUploadResponse = z.object({
  strategy: FileUploadStrategy,
  /** Largest file an upload may have, bytes: the upstream's limit, and the server's own under server_upload_only. */
  file_max_size: z.number().int(),
  upload_file_info: UploadedFileInfo.nullable(),
});
export type StartUploadResponse = z.infer<typeof StartUploadResponse>;

export const FileIdParams = z.object({ id: z.string().uuid() });
export const OpenaiWebFileIdParams = z.object({ file_id: OpenaiWebFileId });

/** Optional query of `POST /api/files/local/upload`; without it, images are `multimodal`, others `my_files`. */
export const LocalUploadQuery = z.object({ use_case: FileUseCase.optional() });

/** `GET /api/conv/{conversation_id}/interpreter/download-url`. */
export const InterpreterDownloadQuery = z.object({
  message_id: z.string().min(1).max(128),
  sandbox_path: z.string().min(1).max(1024),
});
