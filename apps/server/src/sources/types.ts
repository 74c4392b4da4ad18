import type { ChatMessage } from '@cc/contracts';

/** Where and as whom an ask goes. */
export interface UpstreamTarget {
  /** e.g. `http://host/backend-api/` or `https://api.openai.com/v1/`. */
  baseUrl: string;
  /** The servers row, when the target came from one. */
  serverId: number | null;
  /** Bearer token (web access token or API key); never sent anywhere but `baseUrl`. */
  token: string | null;
  proxy: string | null;
  connectTimeoutMs: number;
  readTimeoutMs: number;
}

export interface AskInput {
  target: UpstreamTarget;
  /** Product model name (gpt_4, …). */
  model: string;
  /** Upstream model code (gpt-4, …). */
  modelCode: string;
  /** Upstream code → product name, for reading answers back. */
  modelNameOf: (code: string | null | undefined) => string | null;
  text: string;
  /** Upstream conversation id; null for a new conversation. */
  conversationId: string | null;
  /** The message this question answers to; null for a new conversation. */
  parent: string | null;
  /** The id the user message gets. */
  userMessageId: string;
  /** Web: continue a cut answer instead of asking. */
  continueAnswer: boolean;
  /** API: previous messages sent as context (oldest first). */
  context: { role: 'user' | 'assistant' | 'system'; content: string }[];
  pluginIds: string[] | null;
  attachments: {
    name: string;
    id: string;
    size: number;
    mime_type?: string | null;
    width?: number | null;
    height?: number | null;
  }[];
  imageParts: {
    asset_pointer: string;
    size_bytes: number;
    width: number;
    height: number;
    metadata?: unknown;
  }[];
  signal: AbortSignal;
}

/** What an adapter yields while an answer streams. */
export type SourceEvent =
  /** The upstream conversation id (first event of a new web conversation). */
  | { type: 'conversation'; conversationId: string }
  /** The whole message so far (cumulative snapshot), with its parent set. */
  | { type: 'message'; message: ChatMessage }
  | { type: 'title'; title: string };

export interface SourceAdapter {
  ask(input: AskInput): AsyncGenerator<SourceEvent>;
}
