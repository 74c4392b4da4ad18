import { useQuery } from '@tanstack/react-query';
import type { CommonStatus } from '@cc/contracts';
import { adminApiPaths } from '../../../../config/admin-paths';
import { apiClient } from '../../../../lib/api-client';
import { adminKeys } from '../../shared/query-keys';

export function getCommonStatus(): Promise<CommonStatus> {
  return apiClient.get<CommonStatus>(adminApiPaths.commonStatus);
}

/** Active users, busy flag, waiting count, GPT-4 use; polled every 10 s while the page is open. */
export function useCommonStatus() {
  return useQuery({ queryKey: adminKeys.commonStatus, queryFn: getCommonStatus, refetchInterval: 10_000 });
}
