import { randomUUID } from 'node:crypto';
import { ERROR_DETAILS, isGpt4Model, messageText } from '@cc/contracts';
import type { WebChatMessage } from '@cc/contracts';
import { fail } from '../../errors/app-error';
import { UpstreamError } from '../errors';
import { ensureOk, httpOptions, joinUrl, upstreamRequest } from '../http';
import { sseBatches } from '../sse';
import { estimateUsage } from '../tokens';
import type { AskInput, RequestCheck, SourceAdapter, SourceEvent } from '../types';
import { userMessageBase } from '../user-message';
import { webClient, webHeaders } from './client';
import { convertWebMessage, webUserMessage } from './convert';
import type { UpstreamWebMessage } from './convert';

/** The text that asks the web backend to continue a cut answer instead of asking a new question. */
const CONTINUE = ':continue';
const PLUGINS_MODEL = 'gpt_4_plugins';
const GPT4_CAP_WINDOW_SECONDS = 3 * 3600;

interface StreamItem {
  message?: UpstreamWebMessage | null;
  conversation_id?: string;
  error?: unknown;
  type?: string;
  title?: string;
}

function isContinue(input: Pick<AskInput, 'text' | 'newConversation'>): boolean {
  return input.text === CONTINUE && !input.newConversation;
}

/**
 * The `POST conversation` body: a new question (`next`), the question `userMessageId` answered again (`variant`, the
 * web backend's regenerate), or `continue` of the message `parent`.
 */
function askBody(input: AskInput) {
  const continuing = isContinue(input);
  const { content, metadata } = webUserMessage(input);
  return {
    action: continuing ? 'continue' : input.askAgain ? 'variant' : 'next',
    arkose_token: null,
    conversation_id: input.conversationId,
    conversation_mode: { kind: 'primary_assistant', gizmo_id: null, gizmo: null },
    force_paragen: false,
    force_rate_limit: false,
    history_and_training_disabled: false,
    messages: continuing ? null : [{ id: input.userMessageId, author: { role: 'user' }, content, metadata }],
    model: input.modelCode,
    // Admission gives every web question a parent (a new conversation's is its new root).
    parent_message_id: input.parent ?? randomUUID(),
    plugin_ids: input.pluginIds && input.pluginIds.length > 0 ? input.pluginIds : null,
    suggestions: [],
    timezone_offset_min: null,
  };
}

function streamError(item: StreamItem): UpstreamError {
  return new UpstreamError(null, typeof item.error === 'string' ? item.error : JSON.stringify(item.error));
}

/** Web plugins: chosen when a GPT-4 (Plugins) conversation starts; its follow-ups use the conversation's. */
function pluginsOf({ request, conversation }: RequestCheck): string[] | null {
  const requested = request.openai_web_plugin_ids ?? [];
  if (request.model !== PLUGINS_MODEL) {
    if (requested.length > 0) throw fail.invalidParams(ERROR_DETAILS.pluginsNeedPluginsModel);
    return null;
  }
  if (conversation) return conversation.pluginIds;
  return requested.length > 0 ? requested : null;
}

/** The ChatGPT web backend: `POST conversation` streams cumulative snapshots, title events and an exact `[DONE]`. */
export const openaiWebAdapter: SourceAdapter = {
  source: 'openai_web',

  checkRequest: (check) => ({ pluginIds: pluginsOf(check) }),

  checkUploads({ model, attachments, images, setting, config }) {
    if (attachments === 0 && images === 0) return;
    if (!isGpt4Model(model)) throw fail.uploadingNotAllowed(ERROR_DETAILS.uploadNeedsGpt4Web);
    const web = setting.openai_web;
    if (
      attachments > 0 &&
      !(web.allow_uploading_attachments && config.openai_web.enable_uploading_attachments)
    )
      throw fail.uploadingNotAllowed(ERROR_DETAILS.attachmentsNotAllowed);
    if (
      images > 0 &&
      !(web.allow_uploading_multimodal_images && config.openai_web.enable_uploading_multimodal_images)
    )
      throw fail.uploadingNotAllowed(ERROR_DETAILS.imagesNotAllowed);
  },

  sharedCap(config, model) {
    const limit = config.openai_web.gpt4_cap_per_3_hours;
    if (!isGpt4Model(model) || limit < 0) return null;
    return { limit, windowSeconds: GPT4_CAP_WINDOW_SECONDS, modelPrefix: 'gpt_4' };
  },

  newConversationId: () => null,

  rootedTree: true,

  continues: (request) =>
    isContinue({ text: request.text_content, newConversation: request.new_conversation }),

  userMessage(input, createTime): WebChatMessage | null {
    if (isContinue(input) || input.askAgain) return null;
    return { ...userMessageBase(input, createTime), source: 'openai_web', ...webUserMessage(input) };
  },

  userTarget: () => null,

  async *ask(input: AskInput): AsyncGenerator<SourceEvent> {
    const { target } = input;
    const res = await ensureOk(
      await upstreamRequest(
        joinUrl(target.baseUrl, 'conversation'),
        {
          method: 'POST',
          headers: webHeaders(target, { accept: 'text/event-stream' }),
          body: JSON.stringify(askBody(input)),
        },
        httpOptions(target, { signal: input.signal }),
      ),
    );
    const continuing = isContinue(input);
    let conversationId = input.conversationId;
    // Each new message's parent is the previous message of this stream; the first answers the user message. The
    // message being continued keeps the parent it has (null here: the pipeline keeps the stored one).
    const parents = new Map<string, string | null>();
    let last: string | null = input.askAgain ? input.userMessageId : input.parent;
    const answers = new Map<string, string>();
    for await (const events of sseBatches(res.body)) {
      // Each event holds a whole snapshot of its message: of several snapshots of one message in the same read,
      // the last is relayed.
      let held: WebChatMessage | null = null;
      for (const data of events) {
        let item: StreamItem;
        try {
          item = JSON.parse(data) as StreamItem;
        } catch {
          continue;
        }
        const m = item.message;
        const renamed = !!item.conversation_id && item.conversation_id !== conversationId;
        if (held && (renamed || item.type === 'title_generation' || !m?.content || m.id !== held.id)) {
          yield { type: 'message', message: held };
          held = null;
        }
        if (renamed) {
          conversationId = item.conversation_id!;
          yield { type: 'conversation', conversationId };
        }
        if (item.type === 'title_generation' && item.title) {
          yield { type: 'title', title: item.title };
          continue;
        }
        if (!m?.content) {
          if (item.error) throw streamError(item);
          continue;
        }
        if (!parents.has(m.id)) {
          const continued = continuing && m.id === input.parent;
          parents.set(m.id, m.author?.role === 'user' ? input.parent : continued ? null : last);
          if (!continued) last = m.id;
        }
        const message = convertWebMessage(m, parents.get(m.id) ?? null, input.modelNameOf);
        if (message.role !== 'user') answers.set(message.id, messageText(message));
        held = message;
      }
      if (held) yield { type: 'message', message: held };
    }
    // The web upstream reports no usage: the question and the answer's messages, counted here.
    yield {
      type: 'usage',
      usage: estimateUsage(input.modelCode, [input.text], [...answers.values()].filter(Boolean).join('\n')),
    };
  },

  async setTitle(target, conversationId, title) {
    await webClient(target).patchConversation(conversationId, { title });
  },

  async generateTitle({ target, conversationId, answer, signal }) {
    if (!answer) return null;
    const r = await webClient(target).call<{ title?: string }>(
      'POST',
      `conversation/gen_title/${conversationId}`,
      { message_id: answer.id },
      signal,
    );
    return r.title ?? null;
  },
};
