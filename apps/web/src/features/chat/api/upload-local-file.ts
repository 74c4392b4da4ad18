import type { FileUseCase, UploadedFileInfo } from '@cc/contracts';
import { apiPaths } from '../../../config/paths';
import { postFormWithProgress } from '../../../lib/upload';
import type { ProgressOptions } from '../../../lib/upload';

/** POST /api/files/local/upload?use_case=… (multipart field `file`), with upload progress. */
export function uploadLocalFile(
  file: File,
  useCase: FileUseCase,
  options: ProgressOptions = {},
): Promise<UploadedFileInfo> {
  const form = new FormData();
  form.append('file', file, file.name);
  return postFormWithProgress<UploadedFileInfo>(apiPaths.localUpload(useCase), form, {
    ...options,
    silent: true,
  });
}
