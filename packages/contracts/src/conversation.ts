import { z } from 'zod';
import { ChatSource } from './model-schemas';
import { RowIdParam } from './ids';

/** A conversation as listed (own list and admin list). */
export const ConversationRead = z.object({
  id: z.number().int(),
  source: ChatSource,
  conversation_id: z.string(),
  title: z.string().nullable(),
  user_id: z.number().int().nullable(),
  is_valid: z.boolean(),
  is_public: z.boolean(),
  current_model: z.string().nullable(),
  create_time: z.string(),
  update_time: z.string(),
  /** When its owner pinned it (pinned ones are listed first); null when not pinned. */
  pinned_at: z.string().nullable(),
  /** The owner's username (admin list only). */
  username: z.string().nullable().optional(),
});
export type ConversationRead = z.infer<typeof ConversationRead>;

/** A user pins at most this many conversations. */
export const MAX_PINNED_CONVERSATIONS = 50;
/** Largest page of `GET /api/conv`. */
export const MAX_OWN_LIST_PAGE = 200;

/**
 * `GET /api/conv`: the user's own valid conversations, pinned ones first, then by last update, newest first (ties
 * by id). Without `limit` every one comes back (the original behaviour); with it, one page. The next page starts
 * after the last conversation of this one: pass its `conversation_id` as `after`. A page shorter than `limit` is
 * the last.
 */
export const OwnListQuery = z.object({
  limit: z.coerce.number().int().min(1).max(MAX_OWN_LIST_PAGE).optional(),
  /** The last conversation of the previous page. */
  after: z.string().uuid().optional(),
});
export type OwnListQuery = z.infer<typeof OwnListQuery>;

/** `PUT /api/conv/{conversation_id}/pin` (owner only). */
export const PinUpdate = z.object({ pinned: z.boolean() });
export type PinUpdate = z.infer<typeof PinUpdate>;

export const ConversationIdParams = z.object({ conversation_id: z.string().uuid() });
export const RenameQuery = z.object({ title: z.string().max(256) });

/** Chooses the branch shown: the message that ends the current path (SPEC §4 current-path rule). */
export const CurrentNodeUpdate = z.object({ current_node: z.string().min(1).max(256) });
export type CurrentNodeUpdate = z.infer<typeof CurrentNodeUpdate>;
export const GenTitleQuery = z.object({ message_id: z.string().min(1) });
/** A boolean in a query string: `true`/`false` (or `1`/`0`). */
export const QueryBool = z.enum(['true', 'false', '1', '0']).transform((v) => v === 'true' || v === '1');

/**
 * Search text: NUL characters dropped (neither database can search one; a stray one in a search box should not cost
 * the search), then trimmed.
 */
const SearchText = z
  .string()
  .overwrite((text) => text.replaceAll('\u0000', ''))
  .trim();

/** Sort direction of a paged list. */
export const SortOrder = z.enum(['asc', 'desc']);
export type SortOrder = z.infer<typeof SortOrder>;

/** `GET /api/conv/all` filters (admin). The total before paging is in the `x-total-count` header. */
export const ListAllQuery = z.object({
  /** Only valid conversations (same as `is_valid=true`). */
  valid_only: QueryBool.default(false),
  /** Only valid (`true`) or only invalid (`false`) conversations. */
  is_valid: QueryBool.optional(),
  source: ChatSource.optional(),
  user_id: RowIdParam.optional(),
  /** The owner's username. */
  username: z.string().min(1).max(32).optional(),
  /** Only conversations no user owns (e.g. found by a sync). */
  unassigned: QueryBool.optional(),
  /** Case-insensitive part of the title or of a message's text, or the start of the conversation id. */
  q: SearchText.min(1).max(256).optional(),
  /** Sort column (default: last update); ties by id. */
  sort: z.enum(['update_time', 'create_time', 'title']).default('update_time'),
  order: SortOrder.default('desc'),
  offset: z.coerce.number().int().min(0).default(0),
  /** Page size (default 100). */
  limit: z.coerce.number().int().min(1).max(1000).default(100),
});
export type ListAllQuery = z.infer<typeof ListAllQuery>;

/** `GET /api/conv/search`: the user's own conversations whose title or message text contains `q`. */
export const ConversationSearchQuery = z.object({
  /** Any part of a title or message, case-insensitive; one character is enough (e.g. `巴`). */
  q: SearchText.min(1).max(200),
  limit: z.coerce.number().int().min(1).max(50).default(20),
});
export type ConversationSearchQuery = z.infer<typeof ConversationSearchQuery>;

/**
 * One search hit: a message (or, when `message_id` is null, the conversation's title) and a snippet of its text.
 * `highlights` are `[start, end)` offsets of the matches in `snippet` (JavaScript string indices); the snippet is
 * plain text, never markup.
 */
export const ConversationSearchHit = z.object({
  conversation_id: z.string(),
  title: z.string().nullable(),
  source: ChatSource,
  model: z.string().nullable(),
  message_id: z.string().nullable(),
  role: z.string().nullable(),
  snippet: z.string(),
  highlights: z.array(z.tuple([z.number().int(), z.number().int()])),
  time: z.string(),
});
export type ConversationSearchHit = z.infer<typeof ConversationSearchHit>;

export const BULK_CONVERSATION_ACTIONS = ['invalidate', 'vanish', 'assign'] as const;

/** `POST /api/conv/bulk` (admin). */
export const ConversationBulkRequest = z
  .object({
    action: z.enum(BULK_CONVERSATION_ACTIONS),
    conversation_ids: z.array(z.string().uuid()).min(1).max(500),
    /** The new owner (action `assign`). */
    username: z.string().min(1).max(32).optional(),
  })
  .refine((b) => b.action !== 'assign' || !!b.username, {
    message: 'username is required to assign',
    path: ['username'],
  });
export type ConversationBulkRequest = z.infer<typeof ConversationBulkRequest>;

export const ConversationBulkResult = z.object({
  succeeded: z.array(z.string()),
  /** Each failure with its error message key. */
  failed: z.array(z.object({ conversation_id: z.string(), error: z.string() })),
});
export type ConversationBulkResult = z.infer<typeof ConversationBulkResult>;
export const AssignParams = ConversationIdParams.extend({ username: z.string().min(1) });

export const InterpreterInfo = z.object({
  kernel_started: z.boolean(),
  time_remaining_ms: z.number().nullable(),
});
export type InterpreterInfo = z.infer<typeof InterpreterInfo>;

/** New-conversation form payload (client side). */
export const NewConversationForm = z.object({
  title: z.string().optional(),
  source: ChatSource,
  model: z.string().min(1, { message: 'validation.modelRequired' }),
  openaiWebPlugins: z.array(z.string()).max(3, { message: 'validation.pluginCountExceeded' }).default([]),
});
export type NewConversationForm = z.infer<typeof NewConversationForm>;

/** `/api/status/common`. */
export const CommonStatus = z.object({
  active_user_in_5m: z.number().int(),
  active_user_in_1h: z.number().int(),
  active_user_in_1d: z.number().int(),
  is_chatbot_busy: z.boolean(),
  chatbot_waiting_count: z.number().int(),
  gpt4_count_in_3_hours: z.number().int(),
});
export type CommonStatus = z.infer<typeof CommonStatus>;
