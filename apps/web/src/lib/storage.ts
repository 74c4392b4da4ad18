/**
 * Typed access to the few values kept in localStorage (SPEC §3): theme, language, preference, last source and
 * model, and the login flag. Never a password or a token.
 */
export const STORAGE_KEYS = {
  theme: 'theme',
  language: 'language',
  preference: 'preference',
  lastSelectedSource: 'lastSelectedSource',
  lastSelectedModel: 'lastSelectedModel',
  loginFlag: 'loginExpiresAt',
  sidebarCollapsed: 'foldLeftBar',
  /** The admin hid the demo-mode note (its emulator address, so a new demo setup shows it again). */
  demoNoticeHidden: 'demoNoticeHidden',
} as const;

export type StorageKey = (typeof STORAGE_KEYS)[keyof typeof STORAGE_KEYS];

export function readStorage(key: StorageKey): string | null {
  try {
    return window.localStorage.getItem(key);
  } catch {
    return null;
  }
}

export function writeStorage(key: StorageKey, value: string | null): void {
  try {
    if (value === null) window.localStorage.removeItem(key);
    else window.localStorage.setItem(key, value);
  } catch {
    // Private mode or a full quota: the value lives for this page only.
  }
}

export function readJson<T>(key: StorageKey): T | null {
  const raw = readStorage(key);
  if (raw === null) return null;
  try {
    return JSON.parse(raw) as T;
  } catch {
    return null;
  }
}
