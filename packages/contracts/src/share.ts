import { z } from 'zod';
import { ChatMessage, ConversationHistory } from './message';
import { ChatSource } from './model-schemas';
import { RowIdParam } from './ids';

/** A share link of one's own (the token is shown only once, when the link is created). */
export const ShareRead = z.object({
  id: z.number().int(),
  conversation_id: z.string(),
  /** The conversation's title when the link was made. */
  title: z.string().nullable(),
  created_at: z.string(),
  /** When the link was revoked; null while it works. */
  revoked_at: z.string().nullable(),
});
export type ShareRead = z.infer<typeof ShareRead>;

/** `POST /api/conv/{id}/shares`: the new link with its token (the path to open is `/share/{token}`). */
export const ShareCreated = ShareRead.extend({ token: z.string() });
export type ShareCreated = z.infer<typeof ShareCreated>;

export const ShareIdParams = z.object({ share_id: RowIdParam });
/** Tokens are 32 base64url characters (24 random bytes); anything else cannot be one. */
export const ShareTokenParams = z.object({ token: z.string().min(1).max(128) });
/**
 * `GET /api/share/{token}/files/{file_id}` (public): a file the shared conversation shows. The id is checked
 * against the snapshot, not its shape, so a malformed one is as unknown as any other (404, never 422).
 */
export const ShareFileParams = ShareTokenParams.extend({ file_id: z.string().min(1).max(256) });

/**
 * `GET /api/share/{token}` (public): the conversation as it was when the link was made. Only the messages of the
 * path shown then, in order; no owner, no ids of the conversation. Files it shows (image pointers, attachment ids)
 * load through `/api/share/{token}/files/{file_id}`.
 */
export const SharedConversation = z.object({
  title: z.string().nullable(),
  source: ChatSource,
  current_model: z.string().nullable(),
  /** When the link was made. */
  shared_at: z.string(),
  /** The messages from the first to the last shown, each with its parent. */
  messages: z.array(ChatMessage),
});
export type SharedConversation = z.infer<typeof SharedConversation>;

export const EXPORT_FORMATS = ['json', 'md'] as const;
export const ExportQuery = z.object({ format: z.enum(EXPORT_FORMATS).default('json') });

/** Most messages an imported conversation may hold. */
export const IMPORT_MAX_MESSAGES = 10_000;

/** `POST /api/conv/import`: a JSON export (the history document) as the request body. */
export const ConversationImport = ConversationHistory.extend({
  mapping: z
    .record(z.string().min(1).max(256), ChatMessage)
    .refine((m) => Object.keys(m).length > 0, { message: 'the conversation has no messages' })
    .refine((m) => Object.keys(m).length <= IMPORT_MAX_MESSAGES, {
      message: `more than ${IMPORT_MAX_MESSAGES} messages`,
    }),
});
export type ConversationImport = z.infer<typeof ConversationImport>;
