import { useQuery } from '@tanstack/react-query';
import type { MyUsage } from '@cc/contracts';
import { apiPaths } from '../../../config/paths';
import { apiClient } from '../../../lib/api-client';
import { queryKeys } from '../../../lib/query-keys';

/** GET /api/user/me/usage: own asks and tokens this calendar month (UTC) and the asks left. */
export function getMyUsage(): Promise<MyUsage> {
  return apiClient.get<MyUsage>(apiPaths.myUsage);
}

export function useMyUsage() {
  return useQuery({ queryKey: queryKeys.myUsage, queryFn: getMyUsage });
}
