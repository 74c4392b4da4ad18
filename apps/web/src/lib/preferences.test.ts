import { describe, expect, it } from 'vitest';
import { DEFAULT_PREFERENCE, isSendKeyEvent, parsePreference } from './preferences';

const key = (over: Partial<KeyboardEvent> = {}) => ({
  key: 'Enter',
  shiftKey: false,
  ctrlKey: false,
  metaKey: false,
  altKey: false,
  isComposing: false,
  ...over,
});

describe('preferences', () => {
  it('defaults per SPEC §3 and ignores invalid stored values', () => {
    expect(parsePreference(null)).toEqual(DEFAULT_PREFERENCE);
    expect(DEFAULT_PREFERENCE).toEqual({
      sendKey: 'Enter',
      renderUserMessageInMd: false,
      codeAutoWrap: false,
      widerConversationPage: true,
    });
    expect(parsePreference({ sendKey: 'Alt+X', codeAutoWrap: 'yes', widerConversationPage: false })).toEqual({
      ...DEFAULT_PREFERENCE,
      widerConversationPage: false,
    });
  });

  it('sends on the chosen key only, never while composing', () => {
    expect(isSendKeyEvent(key(), 'Enter')).toBe(true);
    expect(isSendKeyEvent(key({ shiftKey: true }), 'Enter')).toBe(false);
    expect(isSendKeyEvent(key({ isComposing: true }), 'Enter')).toBe(false);
    expect(isSendKeyEvent(key({ shiftKey: true }), 'Shift+Enter')).toBe(true);
    expect(isSendKeyEvent(key(), 'Shift+Enter')).toBe(false);
    expect(isSendKeyEvent(key({ ctrlKey: true }), 'Ctrl+Enter')).toBe(true);
    expect(isSendKeyEvent(key({ metaKey: true }), 'Ctrl+Enter')).toBe(true);
    expect(isSendKeyEvent(key({ isComposing: true, ctrlKey: true }), 'Ctrl+Enter')).toBe(false);
    expect(isSendKeyEvent(key({ key: 'a' }), 'Enter')).toBe(false);
  });
});
