import { keepPreviousData, useQuery } from '@tanstack/react-query';
import type { AskStatsBucket, RequestStatsBucket } from '@cc/contracts';
import { adminApiPaths } from '../../../../config/admin-paths';
import type { StatsQuery } from '../../../../config/admin-paths';
import { apiClient } from '../../../../lib/api-client';
import { adminKeys } from '../../shared/query-keys';

export function getAskStats(query: StatsQuery): Promise<AskStatsBucket[]> {
  return apiClient.get<AskStatsBucket[]>(adminApiPaths.askStats(query));
}

export function getRequestStats(query: StatsQuery): Promise<RequestStatsBucket[]> {
  return apiClient.get<RequestStatsBucket[]>(adminApiPaths.requestStats(query));
}

/** Ask buckets (per source and model) of the chosen range and granularity. */
export function useAskStats(query: StatsQuery) {
  return useQuery({
    queryKey: adminKeys.stats('ask', query),
    queryFn: () => getAskStats(query),
    placeholderData: keepPreviousData,
  });
}

/** Request buckets (per route and method) of the chosen range and granularity. */
export function useRequestStats(query: StatsQuery) {
  return useQuery({
    queryKey: adminKeys.stats('request', query),
    queryFn: () => getRequestStats(query),
    placeholderData: keepPreviousData,
  });
}
