import { z } from 'zod';
import { ChatSource } from './model-schemas';

/** Image part of a multimodal message (uploaded image or DALL·E output). */
export const ImagePart = z.object({
  content_type: z.literal('image_asset_pointer').optional(),
  asset_pointer: z.string(),
  size_bytes: z.number().nullable().optional(),
  width: z.number().nullable().optional(),
  height: z.number().nullable().optional(),
  metadata: z
    .object({
      dalle: z
        .object({
          prompt: z.string().nullable().optional(),
          seed: z.number().nullable().optional(),
          serialization_title: z.string().nullable().optional(),
        })
        .nullable()
        .optional(),
    })
    .loose()
    .nullable()
    .optional(),
});
export type ImagePart = z.infer<typeof ImagePart>;

export const WebContent = z.discriminatedUnion('content_type', [
  z.object({ content_type: z.literal('text'), parts: z.array(z.string()) }),
  z.object({ content_type: z.literal('multimodal_text'), parts: z.array(z.union([z.string(), ImagePart])) }),
  z.object({ content_type: z.literal('code'), language: z.string().nullable().optional(), text: z.string() }),
  z.object({ content_type: z.literal('execution_output'), text: z.string() }),
  z.object({ content_type: z.literal('stderr'), text: z.string() }),
  z.object({ content_type: z.literal('tether_browsing_display'), result: z.string().nullable().optional() }),
  z.object({
    content_type: z.literal('tether_quote'),
    url: z.string().nullable().optional(),
    domain: z.string().nullable().optional(),
    text: z.string().nullable().optional(),
    title: z.string().nullable().optional(),
  }),
  z.object({ content_type: z.literal('system_error'), name: z.string(), text: z.string() }),
]);
export type WebContent = z.infer<typeof WebContent>;

export const ApiContent = z.object({ content_type: z.literal('text'), text: z.string() });
export type ApiContent = z.infer<typeof ApiContent>;

export const Citation = z.object({
  start_ix: z.number(),
  end_ix: z.number(),
  metadata: z
    .object({
      title: z.string().nullable().optional(),
      url: z.string().nullable().optional(),
      text: z.string().nullable().optional(),
    })
    .loose()
    .nullable()
    .optional(),
});

/** Web metadata: known keys typed, everything else the upstream sends kept. */
export const WebMetadata = z
  .object({
    finish_details: z.object({ type: z.string() }).loose().nullable().optional(),
    weight: z.number().nullable().optional(),
    end_turn: z.boolean().nullable().optional(),
    message_status: z.string().nullable().optional(),
    recipient: z.string().nullable().optional(),
    fallback_content: z.unknown().optional(),
    invoked_plugin: z
      .object({
        http_response_status: z.number().nullable().optional(),
        namespace: z.string().nullable().optional(),
        plugin_id: z.string().nullable().optional(),
        type: z.string().nullable().optional(),
      })
      .loose()
      .nullable()
      .optional(),
    command: z.string().nullable().optional(),
    args: z.unknown().optional(),
    status: z.string().nullable().optional(),
    _cite_metadata: z.unknown().optional(),
    citations: z.array(Citation).nullable().optional(),
    attachments: z
      .array(z.object({ name: z.string(), id: z.string(), size: z.number().nullable().optional() }).loose())
      .nullable()
      .optional(),
    is_complete: z.boolean().nullable().optional(),
    aggregate_result: z.unknown().optional(),
  })
  .loose();

export const ApiMetadata = z.object({
  usage: z.object({ prompt_tokens: z.number(), completion_tokens: z.number() }).nullable().optional(),
  finish_reason: z.string().nullable().optional(),
});

export const ROLES = ['system', 'user', 'assistant', 'tool'] as const;

const baseMessage = {
  id: z.string(),
  role: z.string(),
  author_name: z.string().nullable().optional(),
  model: z.string().nullable().optional(),
  create_time: z.string().nullable().optional(),
  parent: z.string().nullable().optional(),
  children: z.array(z.string()),
};

export const WebChatMessage = z.object({
  ...baseMessage,
  source: z.literal('openai_web'),
  content: WebContent.nullable().optional(),
  metadata: WebMetadata.nullable().optional(),
});
export type WebChatMessage = z.infer<typeof WebChatMessage>;

export const ApiChatMessage = z.object({
  ...baseMessage,
  source: z.literal('openai_api'),
  content: ApiContent.nullable().optional(),
  metadata: ApiMetadata.nullable().optional(),
});
export type ApiChatMessage = z.infer<typeof ApiChatMessage>;

export const ChatMessage = z.discriminatedUnion('source', [WebChatMessage, ApiChatMessage]);
export type ChatMessage = z.infer<typeof ChatMessage>;

export const ConversationHistory = z.object({
  _id: z.string(),
  source: ChatSource,
  title: z.string().nullable(),
  create_time: z.string().nullable(),
  update_time: z.string().nullable(),
  mapping: z.record(z.string(), ChatMessage),
  current_node: z.string().nullable(),
  current_model: z.string().nullable(),
  metadata: z
    .object({
      source: ChatSource.optional(),
      moderation_results: z.array(z.unknown()).optional(),
      plugin_ids: z.array(z.string()).nullable().optional(),
    })
    .loose()
    .nullable()
    .optional(),
  /** True when an openai_web history came from the local copy because the upstream was unreachable. */
  from_cache: z.boolean().optional(),
});
export type ConversationHistory = z.infer<typeof ConversationHistory>;
