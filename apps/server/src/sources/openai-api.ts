import { randomUUID } from 'node:crypto';
import { ERROR_DETAILS, clip, messageText } from '@cc/contracts';
import type { ApiChatMessage } from '@cc/contracts';
import { fail } from '../errors/app-error';
import { UpstreamEndedWithoutDone, UpstreamError } from './errors';
import { ensureOk, httpOptions, joinUrl, upstreamRequest } from './http';
import { sseBatches } from './sse';
import { estimateUsage } from './tokens';
import type { TokenUsage } from './tokens';
import type { AskInput, SourceAdapter, SourceEvent, UpstreamTarget } from './types';
import { userMessageBase } from './user-message';

interface CompletionChunk {
  choices?: {
    delta?: { content?: string | null };
    message?: { content?: string | null };
    finish_reason?: string | null;
  }[];
  usage?: { prompt_tokens: number; completion_tokens: number } | null;
  error?: { message?: string };
}

const TITLE_PROMPT =
  'Write a short title (at most 8 words, no quotes, no final period) for this conversation, in its language.';

function headers(target: UpstreamTarget): Record<string, string> {
  const h: Record<string, string> = { 'content-type': 'application/json', accept: 'text/event-stream' };
  if (target.token) h.authorization = `Bearer ${target.token}`;
  return h;
}

function emptyAnswer(input: AskInput): ApiChatMessage {
  return {
    id: randomUUID(),
    source: 'openai_api',
    role: 'assistant',
    author_name: null,
    model: input.model,
    create_time: new Date().toISOString(),
    parent: input.userMessageId,
    children: [],
    content: { content_type: 'text', text: '' },
    metadata: { usage: null, finish_reason: null },
  };
}

/** What the chunks folded since the last snapshot did to the answer's text: appended to it, or replaced it. */
interface TextChange {
  appended: string;
  replaced: boolean;
}

/** Folds one chunk into the answer; true when something the client sees changed. */
function applyChunk(message: ApiChatMessage, chunk: CompletionChunk, change: TextChange): boolean {
  const choice = chunk.choices?.[0];
  const before = message.content?.text ?? '';
  let text = before;
  if (choice?.message?.content != null) {
    text = choice.message.content;
    change.replaced = true;
  } else if (choice?.delta?.content) {
    text += choice.delta.content;
    change.appended += choice.delta.content;
  }
  let changed = text !== before || choice?.message?.content != null;
  message.content = { content_type: 'text', text };
  if (choice?.finish_reason) {
    message.metadata = { ...message.metadata, finish_reason: choice.finish_reason };
    changed = true;
  }
  if (chunk.usage) {
    const { prompt_tokens, completion_tokens } = chunk.usage;
    message.metadata = { ...message.metadata, usage: { prompt_tokens, completion_tokens } };
    changed = true;
  }
  return changed;
}

/** OpenAI-compatible Chat Completions, streamed; usage requested with stream_options. */
export const openaiApiAdapter: SourceAdapter = {
  source: 'openai_api',

  checkRequest({ request }) {
    if ((request.openai_web_plugin_ids?.length ?? 0) > 0)
      throw fail.invalidParams(ERROR_DETAILS.pluginsNeedPluginsModel);
    return { pluginIds: null };
  },

  checkUploads({ attachments, images }) {
    if (attachments > 0 || images > 0) throw fail.uploadingNotAllowed(ERROR_DETAILS.uploadNeedsGpt4Web);
  },

  sharedCap: () => null,

  newConversationId: () => randomUUID(),

  userMessage: (input, createTime): ApiChatMessage | null =>
    input.askAgain
      ? null
      : {
          ...userMessageBase(input, createTime),
          source: 'openai_api',
          content: { content_type: 'text', text: input.text },
          metadata: {},
        },

  userTarget(setting, base, open, config) {
    const api = setting.openai_api;
    if (!api.allow_custom_openai_api || !api.custom_openai_api_settings.url) return null;
    const { url, key } = api.custom_openai_api_settings;
    return {
      ...base,
      baseUrl: url,
      serverId: null,
      token: key ? open(key) : null,
      publicOnly: !config.openai_api.custom_api_private_networks,
    };
  },

  async *ask(input: AskInput): AsyncGenerator<SourceEvent> {
    const { target } = input;
    const context = input.parent ? await input.loadContext(input.contextCount) : [];
    const res = await ensureOk(
      await upstreamRequest(
        joinUrl(target.baseUrl, 'chat/completions'),
        {
          method: 'POST',
          headers: headers(target),
          body: JSON.stringify({
            model: input.modelCode,
            messages: [...context, { role: 'user', content: input.text }],
            stream: true,
            stream_options: { include_usage: true },
          }),
        },
        httpOptions(target, { signal: input.signal }),
      ),
    );
    const message = emptyAnswer(input);
    const finished = () => !!message.metadata?.finish_reason;
    let usage: TokenUsage | null = null;
    const change: TextChange = { appended: '', replaced: false };
    try {
      // The chunks of one read are relayed as one snapshot of the answer.
      for await (const events of sseBatches(res.body)) {
        let changed = false;
        // An error event ends the stream, after what came before it in the same read.
        let failure: UpstreamError | null = null;
        for (const data of events) {
          let chunk: CompletionChunk;
          try {
            chunk = JSON.parse(data) as CompletionChunk;
          } catch {
            continue; // a malformed line is skipped, the stream goes on
          }
          if (chunk.error) {
            failure = new UpstreamError(null, chunk.error.message ?? JSON.stringify(chunk.error));
            break;
          }
          if (applyChunk(message, chunk, change)) changed = true;
          if (chunk.usage) {
            const { prompt_tokens, completion_tokens } = chunk.usage;
            usage = { inputTokens: prompt_tokens, outputTokens: completion_tokens, estimated: false };
          }
        }
        if (changed) {
          const snapshot = { ...message, metadata: { ...message.metadata } };
          yield change.replaced
            ? { type: 'message', message: snapshot }
            : { type: 'message', message: snapshot, appended: change.appended };
          change.appended = '';
          change.replaced = false;
        }
        if (failure) throw failure;
      }
    } catch (e) {
      // Several providers and proxies close right after the finish reason without `data: [DONE]`: the answer is
      // complete. A stream that closes with neither was cut off.
      if (!(e instanceof UpstreamEndedWithoutDone && finished())) throw e;
    }
    // A provider that ends with [DONE] but never gives a finish reason completed its answer all the same: stored
    // without one, the answer would read as cut off.
    if (!finished()) {
      message.metadata = { ...message.metadata, finish_reason: 'stop' };
      yield { type: 'message', message: { ...message, metadata: { ...message.metadata } }, appended: '' };
    }
    // A provider that ignores stream_options reports nothing: count what was sent and received.
    const sent = [...context.map((m) => m.content), input.text];
    yield { type: 'usage', usage: usage ?? estimateUsage(input.modelCode, sent, messageText(message)) };
  },

  setTitle: async () => undefined,

  async generateTitle({ target, modelCode, question, answer, signal }) {
    const answerText = answer?.source === 'openai_api' ? (answer.content?.text ?? '') : '';
    return generateApiTitle(target, modelCode, question, answerText, signal);
  },
};

/** A short non-streamed completion: the title of a conversation. */
export async function generateApiTitle(
  target: UpstreamTarget,
  modelCode: string,
  question: string,
  answer: string,
  signal: AbortSignal,
): Promise<string | null> {
  const res = await ensureOk(
    await upstreamRequest(
      joinUrl(target.baseUrl, 'chat/completions'),
      {
        method: 'POST',
        headers: { ...headers(target), accept: 'application/json' },
        body: JSON.stringify({
          model: modelCode,
          stream: false,
          max_tokens: 24,
          messages: [
            { role: 'system', content: TITLE_PROMPT },
            { role: 'user', content: `${question.slice(0, 2000)}\n\n---\n\n${answer.slice(0, 2000)}` },
          ],
        }),
      },
      httpOptions(target, { signal }),
    ),
  );
  const body = await res.json<{ choices?: { message?: { content?: string } }[] }>();
  const title = body.choices?.[0]?.message?.content?.trim().replace(/^["'“”]+|["'“”.]+$/g, '');
  return title ? clip(title, 80) : null;
}
