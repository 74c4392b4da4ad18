import { keepPreviousData, useQuery } from '@tanstack/react-query';
import type { ServerLogQuery } from '@cc/contracts';
import { adminApiPaths } from '../../../../config/admin-paths';
import { apiClient } from '../../../../lib/api-client';
import { adminKeys } from '../../shared/query-keys';

export function getServerLogs(query: ServerLogQuery): Promise<string[]> {
  return apiClient.post<string[]>(adminApiPaths.serverLogs, { body: query });
}

/** The last lines of the server log without the excluded keywords; `intervalMs` polls (false = manual). */
export function useServerLogs(query: ServerLogQuery, intervalMs: number | false) {
  return useQuery({
    queryKey: adminKeys.serverLogs(query),
    queryFn: () => getServerLogs(query),
    placeholderData: keepPreviousData,
    refetchInterval: intervalMs,
    staleTime: 0,
  });
}
