import type { FileUseCase, UploadedFileInfo } from '@cc/contracts';
import type { FileRow } from '../db/schema';

/** Relative name of a stored upload, as shown to clients (never the server's absolute path). */
export function storagePathOf(storageName: string): string {
  return `uploads/${storageName}`;
}

export function presentFile(row: FileRow): UploadedFileInfo {
  const onUpstream = row.openai_web_file_id !== null;
  return {
    id: row.id,
    original_filename: row.original_filename,
    size: Number(row.size),
    storage_path: row.storage_name ? storagePathOf(row.storage_name) : null,
    content_type: row.content_type,
    upload_time: row.upload_time,
    uploader_id: row.uploader_id,
    openai_web_info: onUpstream
      ? {
          file_id: row.openai_web_file_id,
          use_case: (row.use_case as FileUseCase | null) ?? null,
          upload_url: row.openai_web_upload_url,
          download_url: row.openai_web_download_url,
        }
      : null,
    extra_info: row.width !== null || row.height !== null ? { width: row.width, height: row.height } : null,
  };
}
