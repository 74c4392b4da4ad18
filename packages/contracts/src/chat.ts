import { z } from 'zod';
import { MessageParams } from './envelope';
import { VALIDATION_MESSAGES as V } from './errors';
import { ChatMessage } from './message';
import { ChatSource } from './model-schemas';
import { MAX_ASK_TEXT_CHARS } from './limits';
import { MAX_IMAGES_PER_ASK, MAX_PLUGINS_PER_CONVERSATION } from './models';
import { oneLine, withoutInvisible } from './text';

export const Attachment = z.object({
  // The name others see (a share page, an export): on one line, without control or invisible characters — a
  // right-to-left override would show "invoice<RLO>fdp.exe" as "invoiceexe.pdf".
  name: z.string().max(512).transform(oneLine),
  id: z.string().max(256),
  size: z.number().int().min(0),
  mime_type: z.string().max(256).nullable().optional(),
  width: z.number().int().nullable().optional(),
  height: z.number().int().nullable().optional(),
});

export const AskImagePart = z.object({
  asset_pointer: z.string().max(512),
  size_bytes: z.number().int().min(0),
  width: z.number().int().min(0),
  height: z.number().int().min(0),
  metadata: z
    .object({
      dalle: z
        .object({ prompt: z.string(), seed: z.number().int(), serialization_title: z.string() })
        .partial()
        .nullable()
        .optional(),
    })
    .nullable()
    .optional(),
});

/** One question over the `/api/chat` websocket. */
export const AskRequest = z
  .object({
    source: ChatSource,
    model: z.string().min(1, { message: V.modelRequired }),
    new_conversation: z.boolean(),
    /** Only for a new conversation; blank = generate one. */
    new_title: z.string().max(256).nullable().optional(),
    conversation_id: z.string().uuid().nullable().optional(),
    parent: z.string().uuid().nullable().optional(),
    /** API source: -1 = the whole path from `parent`, N = its last N messages. */
    api_context_message_count: z.number().int().min(-1).default(-1),
    /** `:continue` continues a cut answer (web). */
    text_content: z.string().max(MAX_ASK_TEXT_CHARS, { message: V.messageTooLong }),
    /**
     * `next` (default): a new question under `parent` (an edited question is a new one beside the old: its parent is
     * the old one's parent). `variant`: answer the question `parent` again (regenerate): a new answer beside the old
     * ones, with the same question text sent again in `text_content`.
     */
    action: z.enum(['next', 'variant']).default('next'),
    openai_web_plugin_ids: z
      .array(z.string().max(128))
      .max(MAX_PLUGINS_PER_CONVERSATION, { message: V.pluginCountExceeded })
      .nullable()
      .optional(),
    openai_web_attachments: z.array(Attachment).max(20).nullable().optional(),
    openai_web_multimodal_image_parts: z
      .array(AskImagePart)
      .max(MAX_IMAGES_PER_ASK, { message: V.tooManyImages })
      .nullable()
      .optional(),
    /**
     * `delta`: a message is sent whole once, then only what changed — appended text, changed fields — up to its end
     * (our web client).
     */
    stream_mode: z.enum(['full', 'delta']).default('full'),
    /**
     * Names the answer (the client makes it up), so that a client that loses its socket can resume it with a
     * ResumeRequest. Without one the answer cannot be resumed by id (only as the user's current answer).
     */
    ask_id: z.string().uuid().nullable().optional(),
  })
  .superRefine((v, ctx) => {
    if (v.new_conversation && v.conversation_id) {
      ctx.addIssue({ code: 'custom', path: ['conversation_id'], message: 'errors.invalidParams' });
    }
    if (!v.new_conversation && !v.conversation_id) {
      ctx.addIssue({ code: 'custom', path: ['conversation_id'], message: 'errors.missingConversationId' });
    }
    // A follow-up names its parent; `null` starts a new first question (an API conversation's first, edited).
    if (!v.new_conversation && v.parent === undefined) {
      ctx.addIssue({ code: 'custom', path: ['parent'], message: 'errors.invalidParams' });
    }
    if (v.action === 'variant' && (v.new_conversation || !v.parent)) {
      ctx.addIssue({ code: 'custom', path: ['action'], message: 'errors.invalidParams' });
    }
    if (!v.new_conversation && v.new_title) {
      ctx.addIssue({ code: 'custom', path: ['new_title'], message: 'errors.invalidParams' });
    }
    // Spaces and invisible characters alone (zero-width spaces) are no text.
    if (
      withoutInvisible(v.text_content).trim() === '' &&
      !(v.openai_web_multimodal_image_parts?.length ?? 0)
    ) {
      ctx.addIssue({ code: 'custom', path: ['text_content'], message: 'errors.missingMessageContent' });
    }
  });
export type AskRequest = z.infer<typeof AskRequest>;
export type AskRequestInput = z.input<typeof AskRequest>;

/**
 * Instead of an AskRequest, the first message of a socket may resume an answer in flight: the server replays its
 * frames after the first `after` (delta frames, as a delta-mode client received them) and then streams the rest. With
 * `ask_id` null it resumes the user's current answer, if any (after a page reload).
 */
export const ResumeRequest = z.object({
  type: z.literal('resume'),
  ask_id: z.string().uuid().nullable(),
  after: z.number().int().min(0).default(0),
});
export type ResumeRequest = z.infer<typeof ResumeRequest>;

/**
 * Stops an answer: as the first message of a socket (any tab; `ask_id` null: the user's current answer), or sent on
 * the socket that asked or resumed. Closing the socket that asked with code 1000 also stops it (older clients).
 */
export const StopRequest = z.object({
  type: z.literal('stop'),
  ask_id: z.string().uuid().nullable().optional(),
});
export type StopRequest = z.infer<typeof StopRequest>;

/**
 * What changed in an already-sent message (delta mode): text appended to its text (an API message's text, the one
 * part of a web text message, or the text of code, its output or its errors), and the fields other than its content
 * that changed (`set`: each with its new value, an object replacing the old one whole).
 */
export const MessageDelta = z.object({
  message_id: z.string(),
  append: z.string(),
  set: z.record(z.string(), z.unknown()).optional(),
});

/** Every frame the server sends on `/api/chat` (SPEC §3 AskResponse), discriminated by `type`. */
export const AskResponse = z.discriminatedUnion('type', [
  z.object({
    type: z.literal('queueing'),
    tip: z.string(),
    /** 1 = next in line. */
    position: z.number().int().min(1),
    conversation_id: z.string().nullable().optional(),
  }),
  z.object({
    type: z.literal('waiting'),
    tip: z.string(),
    conversation_id: z.string().nullable().optional(),
  }),
  z.object({
    type: z.literal('message'),
    tip: z.string().nullable().optional(),
    conversation_id: z.string(),
    /** The whole message so far (full mode; in delta mode a new message, or a change a delta cannot carry). */
    message: ChatMessage.optional(),
    /** Delta mode: what changed in an already-sent message. */
    delta: MessageDelta.optional(),
    /** Title generated for a new conversation. */
    title: z.string().optional(),
  }),
  z.object({
    /**
     * Delta mode: text appended to the message the previous message frame named (its `message` or its `delta`).
     * Chunks that arrive close together come as one append. On the chat socket the server sends an append as a
     * binary message holding the text alone (UTF-8): that message is this frame, and counts as one for a resume.
     */
    type: z.literal('append'),
    text: z.string(),
  }),
  z.object({
    type: z.literal('error'),
    tip: z.string(),
    /** A detail key (translated with `params`) or safe, desensitized text; never internal codes or JSON. */
    error_detail: z.string().nullable().optional(),
    /** Interpolation values for `tip` (and for `error_detail` when it is a key). */
    params: MessageParams.optional(),
    conversation_id: z.string().nullable().optional(),
  }),
]);
export type AskResponse = z.infer<typeof AskResponse>;
