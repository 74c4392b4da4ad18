import type { PluginList } from '@cc/contracts';
import { ensureOk, httpOptions, joinUrl, upstreamRequest } from '../http';
import type { UpstreamTarget } from '../types';
import type { UpstreamConversation } from './convert';

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

/**
 * The other backend-api calls: JSON in, JSON out, non-2xx → UpstreamError. Each call waits up to the target's read
 * timeout (`UpstreamDirectory.webTarget` gives the shorter call timeout; the ask pipeline a title timeout).
 */
export function webClient(target: UpstreamTarget) {
  async function call<T>(method: string, path: string, body?: unknown, signal?: AbortSignal): Promise<T> {
    const res = await ensureOk(
      await upstreamRequest(
        joinUrl(target.baseUrl, path),
        { method, headers: webHeaders(target), body: body === undefined ? undefined : JSON.stringify(body) },
        httpOptions(target, { signal }),
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
    patchConversation: (id: string, body: { is_visible?: boolean; title?: string; current_node?: string }) =>
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
export type WebClient = ReturnType<typeof webClient>;
