import { afterEach, describe, expect, it } from 'vitest';
import { LOGIN_FLAG_LIFETIME_MS, clearLoginFlag, hasLoginFlag, setLoginFlag } from './session';

afterEach(() => clearLoginFlag());

describe('login flag', () => {
  it('is valid for one day and then removed', () => {
    const now = 1_000_000;
    setLoginFlag(now);
    expect(LOGIN_FLAG_LIFETIME_MS).toBe(86_400_000);
    expect(hasLoginFlag(now + LOGIN_FLAG_LIFETIME_MS - 1)).toBe(true);
    expect(hasLoginFlag(now + LOGIN_FLAG_LIFETIME_MS)).toBe(false);
    expect(localStorage.getItem('loginExpiresAt')).toBeNull();
  });

  it('stores no credential, only an expiry time', () => {
    setLoginFlag(5);
    expect(Object.keys(localStorage)).toEqual(['loginExpiresAt']);
    expect(localStorage.getItem('loginExpiresAt')).toBe(String(5 + LOGIN_FLAG_LIFETIME_MS));
  });
});
