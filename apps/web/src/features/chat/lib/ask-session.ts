import type { AskResponse, ChatMessage } from '@cc/contracts';
import { appendText } from '../../../lib/conversation/history';

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
  error: { tip: string; detail: string | null } | null;
  close: { code: number; reason: string } | null;
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
      return { ...state, error: { tip: frame.tip, detail: frame.error_detail ?? null } };
    case 'message': {
      let messages = state.messages;
      if (frame.message) messages = upsert(messages, frame.message);
      if (frame.delta) {
        const { message_id, append } = frame.delta;
        const index = messages.findIndex((m) => m.id === message_id);
        const target = messages[index];
        if (target) messages = messages.map((m, i) => (i === index ? appendText(target, append) : m));
      }
      return {
        ...state,
        phase: 'streaming',
        position: null,
        conversationId: frame.conversation_id || state.conversationId,
        title: frame.title ?? state.title,
        messages,
      };
    }
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
  const close = { code, reason };
  if (!state.error && (code === 1000 || byClient) && received) return { ...state, phase: 'finished', close };
  if (byClient && !state.error) return { ...state, phase: 'aborted', close };
  return { ...state, phase: 'failed', close };
}

const CLOSE_CODE_KEYS: Record<number, string> = {
  1000: 'chat.close.1000',
  1001: 'chat.close.1001',
  1006: 'chat.close.1006',
  1007: 'chat.close.1007',
  1008: 'chat.close.1008',
  1011: 'chat.close.1011',
  1013: 'chat.close.1013',
  1014: 'chat.close.1014',
};

/** The failure in words: the error frame's tip and detail, else the close code's meaning and reason. */
export function describeAskFailure(state: AskState, t: (key: string) => string): string {
  if (state.error) {
    const tip = t(state.error.tip);
    return state.error.detail ? `${tip}: ${state.error.detail}` : tip;
  }
  const code = state.close?.code ?? 1006;
  const meaning = t(CLOSE_CODE_KEYS[code] ?? 'chat.close.unknown');
  const reason = state.close?.reason ? t(state.close.reason) : '';
  return `${meaning} (${code})${reason ? `: ${reason}` : ''}`;
}
