import { keepPreviousData, useQuery } from '@tanstack/react-query';
import type { CompletionLog } from '@cc/contracts';
import { adminApiPaths } from '../../../../config/admin-paths';
import type { CompletionLogQuery } from '../../../../config/admin-paths';
import { apiClient } from '../../../../lib/api-client';
import { adminKeys } from '../../shared/query-keys';

export function getCompletionLogs(query: CompletionLogQuery): Promise<CompletionLog[]> {
  return apiClient.get<CompletionLog[]>(adminApiPaths.completionLogs(query));
}

/** Ask (completion) log entries of a time range, newest first as the server returns them. */
export function useCompletionLogs(query: CompletionLogQuery) {
  return useQuery({
    queryKey: adminKeys.completionLogs(query),
    queryFn: () => getCompletionLogs(query),
    placeholderData: keepPreviousData,
  });
}
