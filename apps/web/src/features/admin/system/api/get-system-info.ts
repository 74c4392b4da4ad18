import { useQuery } from '@tanstack/react-query';
import type { SystemInfo } from '@cc/contracts';
import { adminApiPaths } from '../../../../config/admin-paths';
import { apiClient } from '../../../../lib/api-client';
import { adminKeys } from '../../shared/query-keys';

export function getSystemInfo(): Promise<SystemInfo> {
  return apiClient.get<SystemInfo>(adminApiPaths.systemInfo);
}

export function useSystemInfo() {
  return useQuery({ queryKey: adminKeys.systemInfo, queryFn: getSystemInfo, refetchInterval: 30_000 });
}
