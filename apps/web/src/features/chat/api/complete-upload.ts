import type { UploadedFileInfo } from '@cc/contracts';
import { apiPaths } from '../../../config/paths';
import { apiClient } from '../../../lib/api-client';

/** POST /api/files/openai-web/upload-complete/{id}: after the browser PUT the bytes to the signed URL. */
export function completeUpload(id: string): Promise<UploadedFileInfo> {
  return apiClient.post<UploadedFileInfo>(apiPaths.uploadComplete(id), { silent: true });
}
