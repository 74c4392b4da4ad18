import { apiPaths } from '../config/paths';
import { apiClient } from './api-client';

/**
 * URL of an upstream file (an upload, a generated image) through our server: the owner's file route, or on a share
 * link's page (`shareToken`) the link's own route, which serves only the files of the shared conversation.
 */
export function fileContentUrl(fileId: string, shareToken?: string | null): string {
  return shareToken ? apiPaths.sharedFile(shareToken, fileId) : apiPaths.fileDownload(fileId);
}

/**
 * URL of an image or file the model refers to: `file-service://<id>` pointers go through our server (see
 * `fileContentUrl`), http(s) and inline raster images are used as they are; anything else (javascript:,
 * sandbox:, …) gives null.
 */
export function resolveAssetUrl(
  pointer: string | null | undefined,
  shareToken?: string | null,
): string | null {
  if (!pointer) return null;
  const fileService = /^file-service:\/\/([\w.-]+)$/.exec(pointer);
  if (fileService?.[1]) return fileContentUrl(fileService[1], shareToken);
  if (/^https?:\/\//i.test(pointer)) return pointer;
  if (/^data:image\/(png|jpe?g|gif|webp);base64,/i.test(pointer)) return pointer;
  return null;
}

/** Saves bytes under a name (an object URL clicked as a download link, revoked right after). */
export function saveBlob(blob: Blob, fileName: string): void {
  const url = URL.createObjectURL(blob);
  const link = document.createElement('a');
  link.href = url;
  link.download = fileName;
  document.body.appendChild(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(url), 1000);
}

/**
 * Downloads a file our server streams (sandbox files, uploads): a failure (e.g. an expired code interpreter) is
 * reported like any API error instead of saving an error page.
 */
export async function downloadThroughServer(url: string, fallbackName: string): Promise<void> {
  const { blob, fileName } = await apiClient.download(url);
  saveBlob(blob, fileName || fallbackName);
}
