import { DEFAULT_NEW_USER_API, DEFAULT_NEW_USER_WEB } from '@cc/contracts';
import type {
  ApiChatMessage,
  ChatMessage,
  ConversationHistory,
  UserRead,
  WebChatMessage,
} from '@cc/contracts';

/** Builders of contract-shaped messages and histories for unit tests. */
export function web(
  id: string,
  role: string,
  text: string | null,
  extra: Partial<WebChatMessage> = {},
): WebChatMessage {
  return {
    id,
    source: 'openai_web',
    role,
    author_name: null,
    model: 'gpt_4',
    create_time: '2026-01-01T00:00:00Z',
    parent: null,
    children: [],
    content: text === null ? null : { content_type: 'text', parts: [text] },
    metadata: role === 'user' ? {} : { end_turn: true, recipient: 'all' },
    ...extra,
  };
}

export function api(
  id: string,
  role: string,
  text: string,
  extra: Partial<ApiChatMessage> = {},
): ApiChatMessage {
  return {
    id,
    source: 'openai_api',
    role,
    model: 'gpt_3_5',
    create_time: '2026-01-01T00:00:00Z',
    parent: null,
    children: [],
    content: { content_type: 'text', text },
    metadata: {},
    ...extra,
  };
}

/** Links the messages into one chain (each the parent of the next) and builds the history. */
export function chain(
  messages: ChatMessage[],
  extra: Partial<ConversationHistory> = {},
): ConversationHistory {
  const mapping: Record<string, ChatMessage> = {};
  messages.forEach((m, i) => {
    const prev = messages[i - 1];
    const next = messages[i + 1];
    mapping[m.id] = {
      ...m,
      parent: prev?.id ?? m.parent ?? null,
      children: next ? [next.id] : [],
    };
  });
  const first = messages[0];
  return {
    _id: 'conv-1',
    source: first?.source ?? 'openai_web',
    title: 'Fixture',
    create_time: '2026-01-01T00:00:00Z',
    update_time: '2026-01-01T00:00:00Z',
    mapping,
    current_node: messages[messages.length - 1]?.id ?? null,
    current_model: first?.model ?? 'gpt_4',
    ...extra,
  };
}

/** A user as GET /api/user/me returns it (default settings), for unit tests. */
export function baseUser(overrides: Partial<UserRead> = {}): UserRead {
  return {
    id: 7,
    email: 'ann@example.com',
    is_active: true,
    is_superuser: false,
    is_verified: false,
    username: 'ann',
    nickname: 'Ann',
    last_active_time: null,
    create_time: '2026-01-01T00:00:00Z',
    avatar: null,
    setting: {
      id: 1,
      user_id: 7,
      credits: -1,
      daily_budget: -1,
      monthly_budget: -1,
      openai_web_chat_status: 'idling',
      openai_web: structuredClone(DEFAULT_NEW_USER_WEB),
      openai_api: structuredClone(DEFAULT_NEW_USER_API),
    },
    ...overrides,
  };
}

/** A user of openai_web (GPT-3.5 and GPT-4) with the given total and per-model counts (-1 = unlimited). */
export function webUser(total: number, perModel: Record<string, number> = {}): UserRead {
  const user = baseUser();
  user.setting.openai_web = {
    ...user.setting.openai_web,
    allow_to_use: true,
    available_models: ['gpt_3_5', 'gpt_4'],
    total_ask_count: total,
    per_model_ask_count: perModel,
  };
  return user;
}
