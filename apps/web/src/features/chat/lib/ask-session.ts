import { CHAT_CLOSE, ERRORS } from '@cc/contracts';
import type { AskResponse, ChatMessage, MessageParams } from '@cc/contracts';
import { appendText } from '../../../lib/conversation/history';
import { isServerKey, translateServerKey, translateServerMessage } from '../../../lib/errors';
import type { Translate } from '../../../lib/errors';

export type AskPhase =
  'connecting' | 'queueing' | 'waiting' | 'streaming' | 'finished' | 'failed' | 'aborted';

/** The state of one question while it is being answered. */
export interface AskState {
  phase: AskPhase;
  /** Queue position while queueing (1 = next). */
  position: number | null;
  conversationId: string | null;
  /** Title sent by the server for a new conversation. */
  title: string | null;
  /** Messages in arrival order; a `temp_` user message until the server echoes its own. */
  messages: ChatMessage[];
  /** The error frame: its tip key, detail (a key or the provider's desensitized text) and params. */
  error: { tip: string; detail: string | null; params?: MessageParams } | null;
  /** How the socket closed; `byClient`: the user stopped the answer here. */
  close: { code: number; reason: string; byClient: boolean } | null;
  /** The message the last message frame named: an `append` frame adds its text to it. */
  named: string | null;
}

export function startAsk(tempUser: ChatMessage | null, conversationId: string | null): AskState {
  return {
    phase: 'connecting',
    position: null,
    conversationId,
    title: null,
    messages: tempUser ? [tempUser] : [],
    error: null,
    close: null,
    named: null,
  };
}

function upsert(messages: ChatMessage[], message: ChatMessage): ChatMessage[] {
  if (message.role === 'user') {
    const temp = messages.findIndex((m) => m.role === 'user' && m.id.startsWith('temp_'));
    if (temp !== -1) return messages.map((m, i) => (i === temp ? message : m));
  }
  const index = messages.findIndex((m) => m.id === message.id);
  if (index === -1) return [...messages, message];
  return messages.map((m, i) => (i === index ? message : m));
}

/**
 * The messages with `text` appended to one of them and `set`, its other changed fields, applied (the others keep
 * their identity).
 */
function appendTo(
  messages: ChatMessage[],
  id: string,
  text: string,
  set?: Record<string, unknown>,
): ChatMessage[] {
  const index = messages.findIndex((m) => m.id === id);
  const target = messages[index];
  if (!target) return messages;
  const appended = appendText(target, text);
  const changed = set ? ({ ...appended, ...set, content: appended.content } as ChatMessage) : appended;
  return changed === target ? messages : messages.map((m, i) => (i === index ? changed : m));
}

/** Applies one AskResponse frame. Untouched messages keep their identity (their rows do not re-render). */
export function applyFrame(state: AskState, frame: AskResponse): AskState {
  switch (frame.type) {
    case 'queueing':
      return {
        ...state,
        phase: 'queueing',
        position: frame.position,
        conversationId: frame.conversation_id ?? state.conversationId,
      };
    case 'waiting':
      return {
        ...state,
        phase: 'waiting',
        position: null,
        conversationId: frame.conversation_id ?? state.conversationId,
      };
    case 'error':
      return {
        ...state,
        error: {
          tip: frame.tip,
          detail: frame.error_detail ?? null,
          ...(frame.params ? { params: frame.params } : {}),
        },
      };
    case 'message': {
      let messages = state.messages;
      if (frame.message) messages = upsert(messages, frame.message);
      if (frame.delta)
        messages = appendTo(messages, frame.delta.message_id, frame.delta.append, frame.delta.set);
      return {
        ...state,
        phase: 'streaming',
        position: null,
        conversationId: frame.conversation_id || state.conversationId,
        title: frame.title ?? state.title,
        messages,
        named: frame.delta?.message_id ?? frame.message?.id ?? state.named,
      };
    }
    case 'append':
      if (state.named === null) return state;
      return {
        ...state,
        phase: 'streaming',
        position: null,
        messages: appendTo(state.messages, state.named, frame.text),
      };
  }
}

/** True when a message came from the server (not our temporary bubble). */
export function isServerMessage(message: ChatMessage): boolean {
  return !message.id.startsWith('temp_');
}

/**
 * The socket closed: success is a close 1000 (or the user's stop) without an error frame and with something
 * received; a stop before anything arrived is "aborted"; anything else failed.
 */
export function applyClose(state: AskState, code: number, reason: string, byClient: boolean): AskState {
  const received = state.messages.some((m) => isServerMessage(m) && m.role !== 'user');
  const close = { code, reason, byClient };
  if (!state.error && (code === 1000 || byClient) && received) return { ...state, phase: 'finished', close };
  if (byClient && !state.error) return { ...state, phase: 'aborted', close };
  return { ...state, phase: 'failed', close };
}

/**
 * The ask was refused because the session is gone (the socket closes 1008 `errors.unauthorized`): the login-expired
 * dialog says so, not the answer's error card (asking again cannot work before logging in again).
 */
export function isSessionExpired(state: AskState): boolean {
  if (state.phase !== 'failed') return false;
  const tip = state.error?.tip;
  if (tip === ERRORS.unauthorized.message || tip === ERRORS.notLoggedIn.message) return true;
  const { code, reason } = CHAT_CLOSE.unauthorized;
  return state.close?.code === code && state.close.reason === reason;
}

/**
 * Refusals that asking again cannot undo until an administrator changes the user's quota, budget or permissions
 * (or a budget starts again): their error card offers no retry.
 */
const NOT_RETRYABLE = new Set<string>(
  [
    ERRORS.noAvailableTotalAskCount,
    ERRORS.noAvailableGpt4AskCount,
    ERRORS.noAvailableModelAskCount,
    ERRORS.budgetSpent,
    ERRORS.dailyBudgetSpent,
    ERRORS.monthlyBudgetSpent,
    ERRORS.askOverBudget,
    ERRORS.userNotAllowToUseChatType,
    ERRORS.chatTypeNotEnabled,
    ERRORS.userChatTypeExpired,
    ERRORS.userNotAllowToUseModel,
    ERRORS.paidModelNotAvailable,
    ERRORS.modelNotEnabled,
  ].map((e) => e.message),
);

/** False when the failure is a refusal that asking the same again cannot get past (see NOT_RETRYABLE). */
export function canRetryAsk(state: AskState): boolean {
  const key = state.error?.tip ?? (state.close?.code === CHAT_CLOSE.refused.code ? state.close.reason : '');
  return !NOT_RETRYABLE.has(key);
}

const CLOSE_CODE_KEYS: Record<number, string> = {
  1000: 'chat.close.1000',
  1001: 'chat.close.1001',
  1006: 'chat.close.1006',
  1007: 'chat.close.1007',
  1008: 'chat.close.1008',
  1009: 'chat.close.1009',
  1011: 'chat.close.1011',
  1012: 'chat.close.1012',
  1013: 'chat.close.1013',
  1014: 'chat.close.1014',
};

/**
 * The failure in words, translated: the error frame's tip (with its params) and its detail when that is a key,
 * else the close code's meaning and reason. Raw text from the server or the provider is not part of it (see
 * `askFailureRawDetail`).
 */
export function describeAskFailure(state: AskState, t: Translate): string {
  if (state.error) {
    const { tip, detail, params } = state.error;
    const text = translateServerMessage(tip, t, params);
    const translatedDetail = translateServerKey(detail, t, params);
    return translatedDetail ? t('common.labelled', { label: text, text: translatedDetail }) : text;
  }
  const code = state.close?.code ?? 1006;
  const meaning = t(CLOSE_CODE_KEYS[code] ?? 'chat.close.unknown');
  const reason = translateServerKey(state.close?.reason, t);
  return reason ? t('common.labelled', { label: meaning, text: reason }) : meaning;
}

/**
 * The error frame's detail when it is raw text (what the upstream provider said, desensitized, usually English), or
 * the close code of a socket closed without one: shown only behind a "details" disclosure, never inline. Keys, JSON
 * and internal codes give null.
 */
export function askFailureRawDetail(state: AskState): string | null {
  // Closed without an error frame: the socket's close code is for whoever reads the details (support), not inline.
  if (!state.error) return state.close && state.close.code !== 1000 ? `WebSocket ${state.close.code}` : null;
  const detail = state.error.detail?.trim();
  if (!detail || isServerKey(detail)) return null;
  if (detail.startsWith('{') || detail.startsWith('[')) return null;
  if (/\bUND_ERR_[A-Z_]+\b/.test(detail)) return null;
  return detail;
}
