import { randomUUID } from 'node:crypto';
import type { Readable } from 'node:stream';
import { WebContent } from '@cc/contracts';
import type { ConversationHistory, PluginList, WebChatMessage } from '@cc/contracts';
import { UpstreamError } from './errors';
import { ensureOk, joinUrl, upstreamRequest } from './http';
import type { UpstreamResponse } from './http';
import { parseSse } from './sse';
import type { AskInput, SourceAdapter, SourceEvent, UpstreamTarget } from './types';

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

interface StreamItem {
  message?: UpstreamWebMessage | null;
  conversation_id?: string;
  error?: unknown;
  type?: string;
  title?: string;
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

export function webHeaders(
  target: UpstreamTarget,
  extra: Record<string, string> = {},
): Record<string, string> {
  const h: Record<string, string> = {
    'content-type': 'application/json',
    'accept-language': 'en-US',
    referer: 'https://chat.openai.com/',
    ...extra,
  };
  if (target.token) h.authorization = `Bearer ${target.token}`;
  return h;
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

/** The ChatGPT web `POST conversation` stream: cumulative snapshots, title events, exact `[DONE]`. */
export const openaiWebAdapter: SourceAdapter = {
  async *ask(input: AskInput): AsyncGenerator<SourceEvent> {
    const { target } = input;
    const { content, metadata } = webUserMessage(input);
    const body = {
      action: input.continueAnswer ? 'continue' : 'next',
      arkose_token: null,
      conversation_id: input.conversationId,
      conversation_mode: { kind: 'primary_assistant', gizmo_id: null, gizmo: null },
      force_paragen: false,
      force_rate_limit: false,
      history_and_training_disabled: false,
      messages: input.continueAnswer
        ? null
        : [
            {
              id: input.userMessageId,
              author: { role: 'user' },
              content,
              metadata,
            },
          ],
      model: input.modelCode,
      parent_message_id: input.parent ?? randomUUID(),
      plugin_ids: input.pluginIds && input.pluginIds.length > 0 ? input.pluginIds : null,
      suggestions: [],
      timezone_offset_min: null,
    };
    const res = await ensureOk(
      await upstreamRequest(
        joinUrl(target.baseUrl, 'conversation'),
        {
          method: 'POST',
          headers: webHeaders(target, { accept: 'text/event-stream' }),
          body: JSON.stringify(body),
        },
        {
          connectTimeoutMs: target.connectTimeoutMs,
          readTimeoutMs: target.readTimeoutMs,
          proxy: target.proxy,
          signal: input.signal,
        },
      ),
    );
    let conversationId = input.conversationId;
    // Each new message's parent is the previous message of this stream; the first answers the user message.
    const parents = new Map<string, string | null>();
    let last: string | null = input.parent;
    for await (const data of parseSse(res.body)) {
      let item: StreamItem;
      try {
        item = JSON.parse(data) as StreamItem;
      } catch {
        continue;
      }
      if (item.conversation_id && item.conversation_id !== conversationId) {
        conversationId = item.conversation_id;
        yield { type: 'conversation', conversationId };
      }
      if (item.type === 'title_generation' && item.title) {
        yield { type: 'title', title: item.title };
        continue;
      }
      const m = item.message;
      if (!m?.content) {
        if (item.error)
          throw new UpstreamError(
            null,
            typeof item.error === 'string' ? item.error : JSON.stringify(item.error),
          );
        continue;
      }
      if (!parents.has(m.id)) {
        const isUser = m.author?.role === 'user';
        const isContinued = input.continueAnswer && m.id === input.parent;
        parents.set(m.id, isUser ? input.parent : isContinued ? null : last);
        if (!isContinued) last = m.id;
      }
      const parent = parents.get(m.id) ?? null;
      yield { type: 'message', message: convertWebMessage(m, parent, input.modelNameOf) };
    }
  },
};

/** The other backend-api calls: JSON in, JSON out, non-2xx → UpstreamError. */
export function webClient(target: UpstreamTarget) {
  async function call<T>(method: string, path: string, body?: unknown, signal?: AbortSignal): Promise<T> {
    const res = await ensureOk(
      await upstreamRequest(
        joinUrl(target.baseUrl, path),
        { method, headers: webHeaders(target), body: body === undefined ? undefined : JSON.stringify(body) },
        {
          connectTimeoutMs: target.connectTimeoutMs,
          readTimeoutMs: target.connectTimeoutMs,
          proxy: target.proxy,
          signal,
        },
      ),
    );
    const text = await res.text();
    return (text ? JSON.parse(text) : null) as T;
  }
  return {
    call,
    getConversation: (id: string) => call<UpstreamConversation>('GET', `conversation/${id}`),
    listConversations: (offset: number, limit: number) =>
      call<{
        items: {
          id: string;
          title?: string | null;
          create_time?: string | number | null;
          update_time?: string | number | null;
        }[];
        total?: number;
      }>('GET', `conversations?offset=${offset}&limit=${limit}`),
    patchConversation: (id: string, body: { is_visible?: boolean; title?: string }) =>
      call<unknown>('PATCH', `conversation/${id}`, body),
    hideAll: () => call<unknown>('PATCH', 'conversations', { is_visible: false }),
    genTitle: (id: string, messageId: string) =>
      call<{ title?: string; message?: string }>('POST', `conversation/gen_title/${id}`, {
        message_id: messageId,
      }),
    interpreter: (id: string) =>
      call<{ kernel_started: boolean; time_remaining_ms: number | null }>(
        'GET',
        `conversation/${id}/interpreter`,
      ),
    interpreterDownload: (id: string, messageId: string, sandboxPath: string) =>
      call<{ status?: string; download_url?: string; error_message?: string }>(
        'GET',
        `conversation/${id}/interpreter/download?message_id=${encodeURIComponent(messageId)}&sandbox_path=${encodeURIComponent(sandboxPath)}`,
      ),
    approvedPlugins: (q: { offset: number; limit: number; category: string; search: string }) =>
      call<PluginList>(
        'GET',
        `aip/p/approved?offset=${q.offset}&limit=${q.limit}&category=${encodeURIComponent(q.category)}&search=${encodeURIComponent(q.search)}`,
      ),
    installedPlugins: () => call<PluginList>('GET', 'aip/p?offset=0&limit=250&is_installed=true'),
    pluginUserSettings: (id: string, isInstalled: boolean) =>
      call<unknown>('PATCH', `aip/p/${id}/user-settings`, { is_installed: isInstalled }),
    accountCheck: () => call<unknown>('GET', 'accounts/check/v4-2023-04-27'),
    /** Creates an upstream file; the bytes then go to its `upload_url` (see `putToBlob`). */
    createFile: (body: { file_name: string; file_size: number; use_case: string }) =>
      call<{ status?: string; upload_url?: string; file_id?: string }>('POST', 'files', body),
    /** Tells the upstream the bytes are at the blob (allowed once per file). */
    markFileUploaded: (fileId: string) =>
      call<{ status?: string; download_url?: string | null }>(
        'POST',
        `files/${encodeURIComponent(fileId)}/uploaded`,
        {},
      ),
    fileDownload: (fileId: string) =>
      call<{ status?: string; download_url?: string | null; file_name?: string | null }>(
        'GET',
        `files/${encodeURIComponent(fileId)}/download`,
      ),
  };
}

function httpUrl(url: string): URL {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new UpstreamError(null, 'the upstream returned an invalid URL');
  }
  if (parsed.protocol !== 'https:' && parsed.protocol !== 'http:')
    throw new UpstreamError(null, 'the upstream returned a non-HTTP URL');
  return parsed;
}

/**
 * PUTs bytes to a signed blob URL the upstream handed out (Azure style). Deliberately not `webClient().call`: the
 * blob host is not the upstream, so it never gets the account's token (no Authorization header, no cookies).
 */
export async function putToBlob(
  target: UpstreamTarget,
  uploadUrl: string,
  body: Readable | Buffer,
  size: number,
  contentType: string,
): Promise<void> {
  await ensureOk(
    await upstreamRequest(
      httpUrl(uploadUrl).toString(),
      {
        method: 'PUT',
        headers: {
          'x-ms-blob-type': 'BlockBlob',
          'x-ms-version': '2020-04-08',
          'content-type': contentType,
          'content-length': String(size),
        },
        body,
      },
      {
        connectTimeoutMs: target.connectTimeoutMs,
        readTimeoutMs: Math.max(target.readTimeoutMs, 60_000),
        proxy: target.proxy,
      },
    ),
  );
}

/**
 * Opens an upstream download URL for streaming. The token goes only to URLs under the upstream's own base
 * (`…/backend-api/…`); signed blob URLs get no credentials.
 */
export async function openDownload(
  target: UpstreamTarget,
  downloadUrl: string,
  signal?: AbortSignal,
): Promise<UpstreamResponse> {
  const url = httpUrl(downloadUrl).toString();
  const base = target.baseUrl.endsWith('/') ? target.baseUrl : `${target.baseUrl}/`;
  const headers = url.startsWith(base) ? webHeaders(target, { accept: '*/*' }) : { accept: '*/*' };
  return ensureOk(
    await upstreamRequest(
      url,
      { method: 'GET', headers },
      {
        connectTimeoutMs: target.connectTimeoutMs,
        readTimeoutMs: Math.max(target.readTimeoutMs, 60_000),
        proxy: target.proxy,
        signal,
      },
    ),
  );
}
export type WebClient = ReturnType<typeof webClient>;

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
