import { useSyncExternalStore } from 'react';
import { STORAGE_KEYS, readJson, writeStorage } from './storage';

export const SEND_KEYS = ['Enter', 'Shift+Enter', 'Ctrl+Enter'] as const;
export type SendKey = (typeof SEND_KEYS)[number];

/** SPEC §3 client-side preference. */
export interface Preference {
  sendKey: SendKey;
  renderUserMessageInMd: boolean;
  codeAutoWrap: boolean;
  widerConversationPage: boolean;
}

export const DEFAULT_PREFERENCE: Preference = {
  sendKey: 'Enter',
  renderUserMessageInMd: false,
  codeAutoWrap: false,
  widerConversationPage: true,
};

/** Reads the stored preference, keeping only valid fields (an old or hand-edited value cannot break the app). */
export function parsePreference(value: unknown): Preference {
  const v = (typeof value === 'object' && value !== null ? value : {}) as Partial<
    Record<keyof Preference, unknown>
  >;
  const bool = (x: unknown, d: boolean) => (typeof x === 'boolean' ? x : d);
  return {
    sendKey: SEND_KEYS.includes(v.sendKey as SendKey) ? (v.sendKey as SendKey) : DEFAULT_PREFERENCE.sendKey,
    renderUserMessageInMd: bool(v.renderUserMessageInMd, DEFAULT_PREFERENCE.renderUserMessageInMd),
    codeAutoWrap: bool(v.codeAutoWrap, DEFAULT_PREFERENCE.codeAutoWrap),
    widerConversationPage: bool(v.widerConversationPage, DEFAULT_PREFERENCE.widerConversationPage),
  };
}

let current: Preference = parsePreference(readJson(STORAGE_KEYS.preference));
const listeners = new Set<() => void>();

export function getPreference(): Preference {
  return current;
}

export function setPreference(next: Preference): void {
  current = parsePreference(next);
  writeStorage(STORAGE_KEYS.preference, JSON.stringify(current));
  for (const listener of listeners) listener();
}

function subscribe(listener: () => void): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

export function usePreference(): Preference {
  return useSyncExternalStore(subscribe, getPreference, getPreference);
}

/** True when this keydown should send the message under the given send key (IME composition never sends). */
export function isSendKeyEvent(
  event: Pick<KeyboardEvent, 'key' | 'shiftKey' | 'ctrlKey' | 'metaKey' | 'altKey' | 'isComposing'> & {
    keyCode?: number;
  },
  sendKey: SendKey,
): boolean {
  if (event.key !== 'Enter' || event.isComposing || event.keyCode === 229) return false;
  const ctrl = event.ctrlKey || event.metaKey;
  switch (sendKey) {
    case 'Enter':
      return !event.shiftKey && !ctrl && !event.altKey;
    case 'Shift+Enter':
      return event.shiftKey && !ctrl;
    case 'Ctrl+Enter':
      return ctrl && !event.shiftKey;
  }
}
