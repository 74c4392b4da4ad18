import { queryOptions, useQuery } from '@tanstack/react-query';
import type { QueryClient } from '@tanstack/react-query';
import { ERRORS } from '@cc/contracts';
import type { UserRead } from '@cc/contracts';
import { ApiError } from './api-client';
import { queryKeys } from './query-keys';
import { clearLoginFlag, getMe, hasLoginFlag } from './session-flag';

export { LOGIN_FLAG_LIFETIME_MS, clearLoginFlag, getMe, hasLoginFlag, setLoginFlag } from './session-flag';

export const meQueryOptions = queryOptions({
  queryKey: queryKeys.me,
  queryFn: () => getMe(),
  staleTime: 60_000,
});

/** The logged-in user (undefined when not logged in or not loaded yet). */
export function useUser() {
  return useQuery({ ...meQueryOptions, enabled: hasLoginFlag() });
}

/** The user already in the cache, without fetching. */
export function cachedUser(client: QueryClient): UserRead | undefined {
  return client.getQueryData(queryKeys.me);
}

/**
 * Makes sure the user is loaded when the login flag says we are logged in (SPEC §4: on each navigation).
 * Returns the user, or null when not logged in. When the server says the session is gone, the local session is
 * cleared; any other failure (a fetch cut short by a navigation or reload, the network, a 5xx) leaves it and rethrows.
 */
export async function ensureUser(client: QueryClient): Promise<UserRead | null> {
  if (!hasLoginFlag()) {
    if (cachedUser(client)) client.removeQueries({ queryKey: queryKeys.me });
    return null;
  }
  const cached = cachedUser(client);
  if (cached) return cached;
  try {
    return await client.fetchQuery({ queryKey: queryKeys.me, queryFn: () => getMe({ noAuthDialog: true }) });
  } catch (e) {
    if (e instanceof ApiError && e.code === ERRORS.notLoggedIn.code) clearLocalSession(client);
    throw e;
  }
}

/** Forgets the session on this side: the flag and every cached query (the next user must not see them). */
export function clearLocalSession(client: QueryClient): void {
  clearLoginFlag();
  client.clear();
}
