import type { UploadedFileInfo } from '@cc/contracts';
import { apiPaths } from '../../../config/paths';
import { apiClient } from '../../../lib/api-client';

/** POST /api/files/local/upload-to-openai-web/{id}: the server sends its copy of a file on to the upstream. */
export function uploadToOpenaiWeb(id: string): Promise<UploadedFileInfo> {
  return apiClient.post<UploadedFileInfo>(apiPaths.localUploadToOpenaiWeb(id), { silent: true });
}
