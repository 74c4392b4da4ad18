import { keepPreviousData, useMutation, useQuery } from '@tanstack/react-query';
import type { UsageReport } from '@cc/contracts';
import { adminApiPaths } from '../../../../config/admin-paths';
import type { UsageQuery } from '../../../../config/admin-paths';
import { apiClient } from '../../../../lib/api-client';
import { saveBlob } from '../../../../lib/assets';
import { adminKeys } from '../../shared/query-keys';

export function getUsage(query: UsageQuery): Promise<UsageReport> {
  return apiClient.get<UsageReport>(adminApiPaths.usage(query));
}

/** Asks, tokens and times in a range, grouped by user, model or day. */
export function useUsage(query: UsageQuery, enabled = true) {
  return useQuery({
    queryKey: adminKeys.usage(query),
    queryFn: () => getUsage(query),
    placeholderData: keepPreviousData,
    enabled,
  });
}

/** Downloads the same report as a CSV file. */
export async function downloadUsageCsv(query: UsageQuery): Promise<void> {
  const { blob, fileName } = await apiClient.download(adminApiPaths.usageCsv(query));
  saveBlob(blob, fileName ?? `usage-${query.group}.csv`);
}

export function useDownloadUsageCsv() {
  return useMutation({ mutationFn: downloadUsageCsv });
}
