import { WebContent } from '@cc/contracts';
import type { ConversationHistory, WebChatMessage } from '@cc/contracts';
import type { AskInput } from '../types';

/** A message as the ChatGPT web backend sends it. */
export interface UpstreamWebMessage {
  id: string;
  author?: { role?: string; name?: string | null; metadata?: unknown };
  create_time?: number | null;
  update_time?: number | null;
  content?: unknown;
  status?: string | null;
  end_turn?: boolean | null;
  weight?: number | null;
  metadata?: Record<string, unknown> | null;
  recipient?: string | null;
}

export interface UpstreamConversation {
  title?: string | null;
  create_time?: number | string | null;
  update_time?: number | string | null;
  mapping: Record<
    string,
    { id: string; message?: UpstreamWebMessage | null; parent?: string | null; children?: string[] }
  >;
  current_node?: string | null;
  plugin_ids?: string[] | null;
  moderation_results?: unknown[];
  [key: string]: unknown;
}

function isoFromEpoch(v: number | string | null | undefined): string | null {
  if (v == null) return null;
  if (typeof v === 'string') return new Date(v).toISOString();
  return new Date(v * 1000).toISOString();
}

/** Upstream message → our chat message; an unknown content type keeps its raw value in fallback_content. */
export function convertWebMessage(
  m: UpstreamWebMessage,
  parent: string | null,
  modelNameOf: (code: string | null | undefined) => string | null,
  children: string[] = [],
): WebChatMessage {
  const parsed = WebContent.safeParse(m.content);
  const metadata = m.metadata ?? {};
  return {
    id: m.id,
    source: 'openai_web',
    role: m.author?.role ?? 'assistant',
    author_name: m.author?.name ?? null,
    model: modelNameOf(metadata.model_slug as string | undefined),
    create_time: isoFromEpoch(m.create_time),
    parent,
    children,
    content: parsed.success ? parsed.data : null,
    metadata: {
      ...metadata,
      weight: m.weight ?? null,
      end_turn: m.end_turn ?? null,
      recipient: m.recipient ?? null,
      message_status: m.status ?? null,
      fallback_content: parsed.success ? undefined : m.content,
    },
  };
}

/** Upstream conversation → our history document. */
export function convertWebConversation(
  id: string,
  conv: UpstreamConversation,
  modelNameOf: (code: string | null | undefined) => string | null,
): ConversationHistory {
  const mapping: ConversationHistory['mapping'] = {};
  for (const node of Object.values(conv.mapping)) {
    if (!node.message) continue;
    mapping[node.id] = convertWebMessage(node.message, node.parent ?? null, modelNameOf, node.children ?? []);
  }
  let currentModel: string | null = null;
  for (let cur = conv.current_node ?? null; cur && !currentModel; cur = conv.mapping[cur]?.parent ?? null) {
    currentModel = mapping[cur]?.model ?? null;
  }
  return {
    _id: id,
    source: 'openai_web',
    title: conv.title ?? null,
    create_time: isoFromEpoch(conv.create_time ?? null),
    update_time: isoFromEpoch(conv.update_time ?? null),
    mapping,
    current_node: conv.current_node ?? null,
    current_model: currentModel,
    metadata: {
      source: 'openai_web',
      moderation_results: conv.moderation_results ?? [],
      plugin_ids: conv.plugin_ids ?? null,
    },
  };
}

/** An image part as the web protocol carries it (`image_asset_pointer`). */
export function webImagePart(p: AskInput['imageParts'][number]) {
  return {
    content_type: 'image_asset_pointer' as const,
    asset_pointer: p.asset_pointer,
    size_bytes: p.size_bytes,
    width: p.width,
    height: p.height,
    ...(p.metadata ? { metadata: p.metadata } : {}),
  };
}

/** An attachment as the web protocol carries it in `metadata.attachments` (camel-case `mimeType`). */
export function webAttachment(a: AskInput['attachments'][number]) {
  return {
    id: a.id,
    name: a.name,
    size: a.size,
    ...(a.mime_type ? { mimeType: a.mime_type } : {}),
    ...(a.width != null ? { width: a.width } : {}),
    ...(a.height != null ? { height: a.height } : {}),
  };
}

/** The user message's content and metadata: images first, then the text; attachments in the metadata. */
export function webUserMessage(input: Pick<AskInput, 'text' | 'imageParts' | 'attachments'>) {
  return {
    content:
      input.imageParts.length > 0
        ? {
            content_type: 'multimodal_text' as const,
            parts: [...input.imageParts.map(webImagePart), input.text],
          }
        : { content_type: 'text' as const, parts: [input.text] },
    metadata: input.attachments.length > 0 ? { attachments: input.attachments.map(webAttachment) } : {},
  };
}
