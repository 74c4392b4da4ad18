import { queryOptions, useQuery } from '@tanstack/react-query';
import type { CommonStatus } from '@cc/contracts';
import { apiPaths } from '../../../config/paths';
import { apiClient } from '../../../lib/api-client';
import { queryKeys } from '../../../lib/query-keys';

export function getCommonStatus(): Promise<CommonStatus> {
  return apiClient.get<CommonStatus>(apiPaths.commonStatus, { silent: true });
}

export const commonStatusQueryOptions = queryOptions({
  queryKey: queryKeys.commonStatus,
  queryFn: getCommonStatus,
  staleTime: 4_000,
});

/** Polled every 5 s while the card is open; polling stops by itself when it closes or unmounts. */
export function useCommonStatus(open: boolean) {
  return useQuery({ ...commonStatusQueryOptions, enabled: open, refetchInterval: open ? 5_000 : false });
}
