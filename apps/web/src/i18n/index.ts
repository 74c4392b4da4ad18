import i18n from 'i18next';
import { initReactI18next } from 'react-i18next';
import { STORAGE_KEYS, readStorage, writeStorage } from '../lib/storage';
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

/** The strings every page needs; the admin strings (admin.*.json) come with the pages that use them. */
export const resources = {
  // Copies: the admin strings are added into these objects later, never into the imported JSON modules.
  'zh-CN': { translation: { ...zhCN } },
  'en-US': { translation: { ...enUS } },
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

// The admin strings (top-level `adminx`: the admin pages and the demo-mode notice) are a third of all the text:
// fetched per language with the pages that show them, so the login page does not download them.
const ADMIN_STRINGS: Record<Language, () => Promise<{ default: object }>> = {
  'zh-CN': () => import('./admin.zh-CN.json'),
  'en-US': () => import('./admin.en-US.json'),
};
const adminLoaded = new Map<Language, Promise<void>>();
let adminWanted = false;

function addAdminStrings(language: Language): Promise<void> {
  let loaded = adminLoaded.get(language);
  if (!loaded) {
    loaded = ADMIN_STRINGS[language]().then(({ default: strings }) => {
      i18n.addResourceBundle(language, 'translation', strings, true, false);
    });
    loaded.catch(() => adminLoaded.delete(language));
    adminLoaded.set(language, loaded);
  }
  return loaded;
}

function currentLanguage(): Language {
  return LANGUAGES.includes(i18n.language as Language) ? (i18n.language as Language) : DEFAULT_LANGUAGE;
}

/** Whether the admin strings of the current language are in (no request needed to show an admin string). */
export function adminStringsReady(): boolean {
  return i18n.getResource(currentLanguage(), 'translation', 'adminx.demo.title') !== undefined;
}

/** Loads the admin strings of the current language (and of any language switched to later). */
export async function loadAdminStrings(languages: readonly Language[] = [currentLanguage()]): Promise<void> {
  adminWanted = true;
  await Promise.all(languages.map(addAdminStrings));
}

/** Switches the language and remembers it. */
export async function changeLanguage(language: Language): Promise<void> {
  writeStorage(STORAGE_KEYS.language, language);
  if (adminWanted) await addAdminStrings(language).catch(() => undefined);
  await i18n.changeLanguage(language);
}

/** Translates a server-sent i18n key; an unknown key is shown as is rather than hidden. */
export function translateKey(key: string | null | undefined): string {
  if (!key) return '';
  return i18n.exists(key) ? i18n.t(key) : key;
}

export { i18n };
