import { useCallback } from 'react';
import { useTranslation } from 'react-i18next';
import type adminEnUS from '../../../i18n/admin.en-US.json';

type Leaves<T, P extends string = ''> = {
  [K in keyof T & string]: T[K] extends string ? `${P}${K}` : Leaves<T[K], `${P}${K}.`>;
}[keyof T & string];

/** Every key of the admin strings (admin.*.json, top-level `adminx`): a typo is a compile error. */
export type AdminKey = Leaves<(typeof adminEnUS)['adminx']>;

/** Full i18n key of an admin string. */
export function adminKey(key: AdminKey): string {
  return `adminx.${key}`;
}

/**
 * `ta` translates an admin key (checked at compile time); `t` stays available for the app's shared keys
 * (common.*, validation.*, errors.*, sources.*, chatStatus.*).
 */
export function useAdminT() {
  const { t, i18n } = useTranslation();
  const ta = useCallback(
    (key: AdminKey, options?: Record<string, unknown>): string => t(adminKey(key), options ?? {}),
    [t],
  );
  return { ta, t, language: i18n.language };
}
