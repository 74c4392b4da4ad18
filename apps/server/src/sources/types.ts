import type { AskRequest, ChatMessage, ChatSource, Config, UserSetting } from '@cc/contracts';
import type { TokenUsage } from './tokens';

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
  /**
   * A URL a user chose (a custom API address): connect only to public addresses, so that it cannot reach this
   * machine or the private network (unless the config allows private networks).
   */
  publicOnly?: boolean;
}

/** One message of the path from the root to the parent, as context for sources that re-send it. */
export interface ContextMessage {
  role: 'user' | 'assistant' | 'system';
  content: string;
}

export type AskAttachment = NonNullable<AskRequest['openai_web_attachments']>[number];
export type AskImagePart = NonNullable<AskRequest['openai_web_multimodal_image_parts']>[number];

/** One ask as an adapter receives it: everything the pipeline knows, nothing it has to interpret per source. */
export interface AskInput {
  target: UpstreamTarget;
  /** Product model name (gpt_4, …). */
  model: string;
  /** Upstream model code (gpt-4, …). */
  modelCode: string;
  /** Upstream code → product name, for reading answers back. */
  modelNameOf: (code: string | null | undefined) => string | null;
  text: string;
  /** The conversation id: the upstream's, or for a new conversation the one `newConversationId` gave (or null). */
  conversationId: string | null;
  /** True when the conversation is created by this ask. */
  newConversation: boolean;
  /** The message this question answers to; null for a new conversation. */
  parent: string | null;
  /** The id the user message gets (when asking again: the id of the question answered again). */
  userMessageId: string;
  /** Answer the question `userMessageId` (already under `parent`) again, beside its other answers (regenerate). */
  askAgain: boolean;
  /** The plugins of the conversation (new: those asked for; follow-up: those it was created with). */
  pluginIds: string[] | null;
  attachments: AskAttachment[];
  imageParts: AskImagePart[];
  /** The path from the root to `parent` (oldest first), at most its last `count` messages (-1 = all). */
  loadContext: (count: number) => Promise<ContextMessage[]>;
  /** How many context messages the client asked to re-send (-1 = all). */
  contextCount: number;
  signal: AbortSignal;
}

/** What an adapter yields while an answer streams. */
export type SourceEvent =
  /** The upstream conversation id (first event of a new conversation whose id the upstream gives). */
  | { type: 'conversation'; conversationId: string }
  /**
   * The whole message so far (cumulative snapshot), with its parent set (null: keep the stored parent).
   * `appended`, when given: the message's text is the text of its previous snapshot followed by exactly this (a
   * source that builds its answer by appending says so; frames then carry the new text without reading the whole
   * answer, which is a string grown chunk by chunk: reading into it copies all of it, for every chunk).
   */
  | { type: 'message'; message: ChatMessage; appended?: string }
  | { type: 'title'; title: string }
  /** Tokens in and out: the upstream's count, or an estimate when it reports none (once, at the end). */
  | { type: 'usage'; usage: TokenUsage };

/** What the pipeline knows about the conversation an ask continues. */
export interface ConversationInfo {
  conversationId: string;
  pluginIds: string[] | null;
}

/** What an adapter may read to decide whether it can take a request. */
export interface RequestCheck {
  request: AskRequest;
  /** The conversation a follow-up continues; null for a new conversation. */
  conversation: ConversationInfo | null;
  setting: UserSetting;
  config: Config;
}

/** The uploads of one ask, for `checkUploads`. */
export interface UploadCheck {
  model: string;
  attachments: number;
  images: number;
  setting: UserSetting;
  config: Config;
}

/** A cap shared by every user of the source (e.g. the web account's GPT-4 messages per 3 hours). */
export interface SharedCap {
  limit: number;
  windowSeconds: number;
  /** Logged asks of models starting with this count toward the cap. */
  modelPrefix: string;
}

/** What the pipeline asks of a source once the answer is complete. */
export interface TitleInput {
  target: UpstreamTarget;
  modelCode: string;
  conversationId: string;
  question: string;
  /** The last assistant message of the answer, if any. */
  answer: ChatMessage | null;
  signal: AbortSignal;
}

/**
 * Everything source-specific about asking: the pipeline in `chat/` calls these and never branches on the
 * source name. A new source is one new adapter (plus its name in the contracts and its settings).
 */
export interface SourceAdapter {
  readonly source: ChatSource;
  /**
   * Refuses what this source cannot do with this request (plugins, uploads, continue, …) before anything is
   * charged, and returns the plugins the ask uses. Throws the application error the user should see.
   */
  checkRequest(check: RequestCheck): { pluginIds: string[] | null };
  /** Refuses attachments or images this source, model and user may not send (a quota check, in its order). */
  checkUploads(check: UploadCheck): void;
  /** The cap shared by all users that this ask counts toward, if any. */
  sharedCap(config: Config, model: string): SharedCap | null;
  /** The id of a new conversation before the upstream answers; null when the upstream gives it. */
  newConversationId(): string | null;
  /**
   * Whether a conversation's first questions hang from a root node (the web backend's: a new conversation is asked
   * under a new root id, and a question is never without a parent). Without it a first question has no parent.
   */
  readonly rootedTree?: boolean;
  /** Whether the ask continues the answer `parent` (which must then be an answer) instead of asking a question. */
  continues?(request: AskRequest): boolean;
  /** The user message as stored and shown; null when the ask sends none (e.g. continuing a cut answer). */
  userMessage(input: AskInput, createTime: string): ChatMessage | null;
  /**
   * A target of the user's own (e.g. a custom API URL and key), used instead of the shared servers; it reaches
   * only public addresses unless the config allows private networks.
   */
  userTarget(
    setting: UserSetting,
    base: UpstreamTarget,
    open: (sealed: string) => string,
    config: Config,
  ): UpstreamTarget | null;
  /** Streams the answer. */
  ask(input: AskInput): AsyncGenerator<SourceEvent>;
  /** Tells the upstream the title the user chose for a new conversation (a no-op where titles are local). */
  setTitle(target: UpstreamTarget, conversationId: string, title: string): Promise<void>;
  /** A title for a new conversation that has none yet; null when the source cannot make one. */
  generateTitle(input: TitleInput): Promise<string | null>;
}
