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

/** Quietly: a failure only means no demo note. */
function getDemoMode(): Promise<SystemInfo['demo']> {
  return apiClient.get<SystemInfo>(adminApiPaths.systemInfo, { silent: true }).then((info) => info.demo);
}

/**
 * Demo mode (null when a real upstream serves every source), for the admin's note on the chat page. Only asked
 * when `enabled` (superusers: the info is theirs only); the mode changes only with the config, so it is kept a while.
 */
export function useDemoMode(enabled: boolean) {
  return useQuery({ queryKey: adminKeys.demoMode, queryFn: getDemoMode, enabled, staleTime: 5 * 60_000 });
}
