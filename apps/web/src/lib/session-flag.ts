import type { UserRead } from '@cc/contracts';
import { apiPaths } from '../config/paths';
import { apiClient } from './api-client';
import { STORAGE_KEYS, readStorage, writeStorage } from './storage';

/* The login flag and the current user, without the query cache (the login page is a page of its own). */

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

export function getMe(options: { noAuthDialog?: boolean; silent?: boolean } = {}): Promise<UserRead> {
  return apiClient.get<UserRead>(apiPaths.me, options);
}
