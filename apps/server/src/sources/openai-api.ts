import { randomUUID } from 'node:crypto';
import type { ApiChatMessage } from '@cc/contracts';
import { UpstreamError } from './errors';
import { ensureOk, joinUrl, upstreamRequest } from './http';
import { parseSse } from './sse';
import type { AskInput, SourceAdapter, SourceEvent, UpstreamTarget } from './types';

interface CompletionChunk {
  choices?: {
    delta?: { content?: string | null };
    message?: { content?: string | null };
    finish_reason?: string | null;
  }[];
  usage?: { prompt_tokens: number; completion_tokens: number } | null;
  error?: { message?: string };
}

function headers(target: UpstreamTarget): Record<string, string> {
  const h: Record<string, string> = { 'content-type': 'application/json', accept: 'text/event-stream' };
  if (target.token) h.authorization = `Bearer ${target.token}`;
  return h;
}

/** OpenAI-compatible Chat Completions, streamed; usage requested with stream_options. */
export const openaiApiAdapter: SourceAdapter = {
  async *ask(input: AskInput): AsyncGenerator<SourceEvent> {
    const { target } = input;
    const res = await ensureOk(
      await upstreamRequest(
        joinUrl(target.baseUrl, 'chat/completions'),
        {
          method: 'POST',
          headers: headers(target),
          body: JSON.stringify({
            model: input.modelCode,
            messages: [...input.context, { role: 'user', content: input.text }],
            stream: true,
            stream_options: { include_usage: true },
          }),
        },
        {
          connectTimeoutMs: target.connectTimeoutMs,
          readTimeoutMs: target.readTimeoutMs,
          proxy: target.proxy,
          signal: input.signal,
        },
      ),
    );
    const message: ApiChatMessage = {
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
    let text = '';
    for await (const data of parseSse(res.body)) {
      let chunk: CompletionChunk;
      try {
        chunk = JSON.parse(data) as CompletionChunk;
      } catch {
        continue; // a malformed line is skipped, the stream goes on
      }
      if (chunk.error) throw new UpstreamError(null, chunk.error.message ?? JSON.stringify(chunk.error));
      let changed = false;
      const choice = chunk.choices?.[0];
      if (choice?.message?.content != null) {
        text = choice.message.content;
        changed = true;
      } else if (choice?.delta?.content) {
        text += choice.delta.content;
        changed = true;
      }
      if (choice?.finish_reason) {
        message.metadata = { ...message.metadata, finish_reason: choice.finish_reason };
        changed = true;
      }
      if (chunk.usage) {
        message.metadata = {
          ...message.metadata,
          usage: {
            prompt_tokens: chunk.usage.prompt_tokens,
            completion_tokens: chunk.usage.completion_tokens,
          },
        };
        changed = true;
      }
      if (changed) {
        message.content = { content_type: 'text', text };
        yield { type: 'message', message: { ...message, metadata: { ...message.metadata } } };
      }
    }
  },
};

/** A short non-streamed completion: the title of a new API conversation. */
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
            {
              role: 'system',
              content:
                'Write a short title (at most 8 words, no quotes, no final period) for this conversation, in its language.',
            },
            { role: 'user', content: `${question.slice(0, 2000)}\n\n---\n\n${answer.slice(0, 2000)}` },
          ],
        }),
      },
      {
        connectTimeoutMs: target.connectTimeoutMs,
        readTimeoutMs: target.readTimeoutMs,
        proxy: target.proxy,
        signal,
      },
    ),
  );
  const body = await res.json<{ choices?: { message?: { content?: string } }[] }>();
  const title = body.choices?.[0]?.message?.content?.trim().replace(/^["'“”]+|["'“”.]+$/g, '');
  return title ? title.slice(0, 80) : null;
}
