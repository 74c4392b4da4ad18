import { queryOptions, useQuery } from '@tanstack/react-query';
import type { QueryClient } from '@tanstack/react-query';
import { ERRORS } from '@cc/contracts';
import type { UserRead } from '@cc/contracts';
import { apiPaths } from '../config/paths';
import { ApiError, apiClient } from './api-client';
import { queryKeys } from './query-keys';
import { STORAGE_KEYS, readStorage, writeStorage } from './storage';

/** SPEC §9: the client keeps its "logged in" flag for one day (the session cookie itself is HttpOnly). */
export const LOGIN_FLAG_LIFETIME_MS = 24 * 60 * 60 * 1000;

export function setLoginFlag(now = Date.now()): void {
  writeStorage(STORAGE_KEYS.loginFlag, String(now + LOGIN_FLAG_LIFETIME_MS));
}

export function clearLoginFlag(): void {
  writeStorage(STORAGE_KEYS.loginFlag, null);
}

/** True while a login of the last day has not been logged out; an expired flag is removed. */
export function hasLoginFlag(now = Date.now()): boolean {
  const raw = readStorage(STORAGE_KEYS.loginFlag);
  const expiresAt = raw === null ? NaN : Number(raw);
  if (!Number.isFinite(expiresAt)) return false;
  if (expiresAt <= now) {
    clearLoginFlag();
    return false;
  }
  return true;
}

export function getMe(options: { noAuthDialog?: boolean } = {}): Promise<UserRead> {
  return apiClient.get<UserRead>(apiPaths.me, options);
}

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
