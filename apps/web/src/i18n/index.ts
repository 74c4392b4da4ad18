import i18n from 'i18next';
import { initReactI18next } from 'react-i18next';
import { STORAGE_KEYS, readStorage, writeStorage } from '../lib/storage';
import adminEnUS from './admin.en-US.json';
import adminZhCN from './admin.zh-CN.json';
import enUS from './en-US.json';
import zhCN from './zh-CN.json';

export const LANGUAGES = ['zh-CN', 'en-US'] as const;
export type Language = (typeof LANGUAGES)[number];
/** SPEC §1: Chinese by default. */
export const DEFAULT_LANGUAGE: Language = 'zh-CN';
export const LANGUAGE_NAMES: Record<Language, string> = { 'zh-CN': '简体中文', 'en-US': 'English' };

export function storedLanguage(): Language {
  const value = readStorage(STORAGE_KEYS.language);
  return LANGUAGES.includes(value as Language) ? (value as Language) : DEFAULT_LANGUAGE;
}

type Tree = { [key: string]: string | Tree };

/** The admin pages keep their strings in admin.*.json; they are merged in (objects deep, no key is replaced). */
function deepMerge<A extends object, B extends object>(base: A, extra: B): A & B {
  const out: Tree = { ...(base as Tree) };
  for (const [key, value] of Object.entries(extra as Tree)) {
    const current = out[key];
    out[key] =
      typeof current === 'object' && typeof value === 'object'
        ? deepMerge(current, value)
        : (current ?? value);
  }
  return out as A & B;
}

export const resources = {
  'zh-CN': { translation: deepMerge(zhCN, adminZhCN) },
  'en-US': { translation: deepMerge(enUS, adminEnUS) },
} as const;

void i18n.use(initReactI18next).init({
  resources,
  lng: storedLanguage(),
  fallbackLng: DEFAULT_LANGUAGE,
  supportedLngs: [...LANGUAGES],
  interpolation: { escapeValue: false },
  returnNull: false,
  initAsync: false,
});

function syncDocumentLanguage(lng: string): void {
  if (typeof document !== 'undefined') document.documentElement.lang = lng;
}
syncDocumentLanguage(i18n.language);
i18n.on('languageChanged', syncDocumentLanguage);

/** Switches the language and remembers it. */
export async function changeLanguage(language: Language): Promise<void> {
  writeStorage(STORAGE_KEYS.language, language);
  await i18n.changeLanguage(language);
}

/** Translates a server-sent i18n key; an unknown key is shown as is rather than hidden. */
export function translateKey(key: string | null | undefined): string {
  if (!key) return '';
  return i18n.exists(key) ? i18n.t(key) : key;
}

export { i18n };
