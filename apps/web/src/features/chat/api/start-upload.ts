import type { StartUploadRequest, StartUploadResponse } from '@cc/contracts';
import { apiPaths } from '../../../config/paths';
import { apiClient } from '../../../lib/api-client';

/**
 * POST /api/files/openai-web/upload-start: the server picks the strategy; `upload_file_info` null means "send the
 * bytes to the server first". Silent: the upload list shows the failure next to the file.
 */
export function startUpload(body: StartUploadRequest): Promise<StartUploadResponse> {
  return apiClient.post<StartUploadResponse>(apiPaths.uploadStart, { body, silent: true });
}
