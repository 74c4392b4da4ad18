import { queryOptions, useQuery } from '@tanstack/react-query';
import type { ConfigRead } from '@cc/contracts';
import { adminApiPaths } from '../../../../config/admin-paths';
import { apiClient } from '../../../../lib/api-client';
import { adminKeys } from '../../shared/query-keys';

/** The running config; secrets inside it read as the mask. */
export function getConfig(): Promise<ConfigRead> {
  return apiClient.get<ConfigRead>(adminApiPaths.config);
}

export const configQueryOptions = queryOptions({
  queryKey: adminKeys.config,
  queryFn: getConfig,
  staleTime: 0,
});

export function useConfig() {
  return useQuery(configQueryOptions);
}
