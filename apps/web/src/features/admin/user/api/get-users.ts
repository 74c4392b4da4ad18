import { queryOptions, useQuery } from '@tanstack/react-query';
import type { UserReadAdmin } from '@cc/contracts';
import { adminApiPaths } from '../../../../config/admin-paths';
import { apiClient } from '../../../../lib/api-client';
import { adminKeys } from '../../shared/query-keys';

export function getUsers(): Promise<UserReadAdmin[]> {
  return apiClient.get<UserReadAdmin[]>(adminApiPaths.users);
}

export const usersQueryOptions = queryOptions({
  queryKey: adminKeys.users,
  queryFn: getUsers,
  staleTime: 10_000,
});

/** How often the list refreshes by itself while shown (chat statuses change as people ask). */
export const USERS_REFRESH_MS = 10_000;

/**
 * Every user with settings and live chat status (also the username source of the conversation page); refreshed
 * by itself every 10 s while a page shows it.
 */
export function useUsers() {
  return useQuery({ ...usersQueryOptions, refetchInterval: USERS_REFRESH_MS });
}
