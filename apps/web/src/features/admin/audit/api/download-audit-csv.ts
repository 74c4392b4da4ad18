import { useMutation } from '@tanstack/react-query';
import { adminApiPaths } from '../../../../config/admin-paths';
import type { AuditQuery } from '../../../../config/admin-paths';
import { apiClient } from '../../../../lib/api-client';
import { saveBlob } from '../../../../lib/assets';

/** Downloads the entries matching the filters (all pages) as a CSV file. */
export async function downloadAuditCsv(query: AuditQuery): Promise<void> {
  const { offset: _offset, limit: _limit, ...filters } = query;
  const { blob, fileName } = await apiClient.download(adminApiPaths.auditCsv(filters));
  saveBlob(blob, fileName ?? 'audit.csv');
}

export function useDownloadAuditCsv() {
  return useMutation({ mutationFn: downloadAuditCsv });
}
