import { keepPreviousData, queryOptions, useQuery } from '@tanstack/react-query';
import type { UserReadAdmin, UserRef } from '@cc/contracts';
import { adminApiPaths } from '../../../../config/admin-paths';
import type { UserFilter, UserListQuery } from '../../../../config/admin-paths';
import { apiClient } from '../../../../lib/api-client';
import type { ListPage } from '../../../../lib/api-client';
import { adminKeys } from '../../shared/query-keys';

export function getUsers(query: UserListQuery = {}): Promise<ListPage<UserReadAdmin>> {
  return apiClient.getPage<UserReadAdmin>(adminApiPaths.users(query));
}

export const usersQueryOptions = (query: UserListQuery = {}) =>
  queryOptions({
    queryKey: [...adminKeys.users, 'page', query],
    queryFn: () => getUsers(query),
    placeholderData: keepPreviousData,
    staleTime: 10_000,
  });

/** How often the list refreshes by itself while shown (chat statuses change as people ask). */
export const USERS_REFRESH_MS = 10_000;

/**
 * One page of users, searched, filtered and sorted on the server, with settings and live chat status; refreshed by
 * itself every 10 s while a page shows it.
 */
export function useUsers(query: UserListQuery = {}) {
  return useQuery({ ...usersQueryOptions(query), refetchInterval: USERS_REFRESH_MS });
}

export function getUserRefs(filter: UserFilter & { limit?: number } = {}): Promise<UserRef[]> {
  return apiClient.get<UserRef[]>(adminApiPaths.userRefs(filter));
}

/** Names of the users that match (a picker's choices); nothing is fetched while `enabled` is false. */
export function useUserRefs(filter: UserFilter & { limit?: number }, enabled = true) {
  return useQuery({
    queryKey: [...adminKeys.users, 'refs', filter],
    queryFn: () => getUserRefs(filter),
    placeholderData: keepPreviousData,
    staleTime: 10_000,
    enabled,
  });
}
