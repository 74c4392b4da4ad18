/** OpenAI Chat Completions (`/v1/`): `POST chat/completions` (JSON or SSE deltas) and `GET models`. */
import type { RequestContext, Route } from './context';
import { param } from './context';
import { hasStatus, mergeFaults, sendStatusFault } from './faults';
import type { PromptImage, PromptInput } from './scenarios';
import { apiReply, parsePrompt } from './scenarios';
import { AskLifecycle, EventStream } from './stream';
import { chunkText, titleFromPrompt } from './text';
import { countWords, isRecord, newCompletionId, sendJson, sleep, untilAborted } from './util';

/** Models the emulated API knows; any other model gets a 404 `model_not_found`. */
export const API_MODELS: readonly { id: string; created: number; owned_by: string }[] = [
  { id: 'gpt-3.5-turbo', created: 1677610602, owned_by: 'openai' },
  { id: 'gpt-3.5-turbo-0125', created: 1706048358, owned_by: 'system' },
  { id: 'gpt-3.5-turbo-16k', created: 1683758102, owned_by: 'openai-internal' },
  { id: 'gpt-4', created: 1687882411, owned_by: 'openai' },
  { id: 'gpt-4-0613', created: 1686588896, owned_by: 'openai' },
  { id: 'gpt-4-turbo', created: 1712361441, owned_by: 'system' },
  { id: 'gpt-4o', created: 1715367049, owned_by: 'system' },
  { id: 'gpt-4o-mini', created: 1721172741, owned_by: 'system' },
];

const FINGERPRINT = 'fp_emulator0';

export function apiError(
  ctx: RequestContext,
  status: number,
  message: string,
  type = 'invalid_request_error',
  code: string | null = null,
  paramName: string | null = null,
): void {
  sendJson(ctx.res, status, { error: { message, type, param: paramName, code } });
}

interface ChatMessageIn {
  role: string;
  text: string;
  images: PromptImage[];
}

function readMessages(value: unknown): ChatMessageIn[] | string {
  if (!Array.isArray(value)) return "'messages' is a required property";
  if (value.length === 0) return "[] is too short - 'messages'";
  const out: ChatMessageIn[] = [];
  for (const [i, m] of value.entries()) {
    if (!isRecord(m) || typeof m['role'] !== 'string')
      return `'role' is a required property - 'messages.${i}'`;
    const content = m['content'];
    const images: PromptImage[] = [];
    let text = '';
    if (typeof content === 'string') text = content;
    else if (Array.isArray(content)) {
      const texts: string[] = [];
      for (const part of content) {
        if (!isRecord(part)) return `Invalid content part in 'messages.${i}'`;
        if (part['type'] === 'text' && typeof part['text'] === 'string') texts.push(part['text']);
        else if (part['type'] === 'image_url') {
          const image = part['image_url'];
          const url = isRecord(image) ? image['url'] : image;
          if (typeof url !== 'string') return `Invalid image_url in 'messages.${i}'`;
          images.push({ assetPointer: url });
        } else return `Invalid content part type in 'messages.${i}'`;
      }
      text = texts.join('\n');
    } else if (content !== null && content !== undefined) {
      return `Invalid type for 'messages.${i}.content'`;
    }
    out.push({ role: m['role'], text, images });
  }
  return out;
}

async function chatCompletions(ctx: RequestContext): Promise<void> {
  if (ctx.bodyInvalid) {
    return apiError(
      ctx,
      400,
      "We could not parse the JSON body of your request. (HINT: This likely means you aren't using your HTTP library correctly.)",
    );
  }
  const body = ctx.body;
  if (!isRecord(body)) return apiError(ctx, 400, 'The request body must be a JSON object.');
  const model = body['model'];
  if (typeof model !== 'string' || model === '') {
    return apiError(ctx, 400, 'you must provide a model parameter', 'invalid_request_error', null, 'model');
  }
  const messages = readMessages(body['messages']);
  if (typeof messages === 'string')
    return apiError(ctx, 400, messages, 'invalid_request_error', null, 'messages');
  const streamOptions = body['stream_options'];
  const stream = body['stream'] === true;
  if (streamOptions !== undefined && streamOptions !== null && !stream) {
    return apiError(
      ctx,
      400,
      "The 'stream_options' parameter is only allowed when 'stream' is enabled.",
      'invalid_request_error',
      null,
      'stream_options',
    );
  }
  const includeUsage = isRecord(streamOptions) && streamOptions['include_usage'] === true;

  const lastUser = [...messages].reverse().find((m) => m.role === 'user');
  const input: PromptInput = { text: lastUser?.text ?? '', images: lastUser?.images ?? [], attachments: [] };
  const parsed = parsePrompt(input.text);
  const fault = mergeFaults(ctx.core.takeFault(), parsed.fault);
  if (hasStatus(fault)) return sendStatusFault(ctx.res, fault, 'api');
  if (!API_MODELS.some((m) => m.id === model)) {
    return apiError(
      ctx,
      404,
      `The model \`${model}\` does not exist or you do not have access to it.`,
      'invalid_request_error',
      'model_not_found',
    );
  }

  // A system prompt asking for a title gets a short title, as a real model would give.
  const wantsTitle = messages.some((m) => m.role === 'system' && /\btitle\b/i.test(m.text));
  const reply = wantsTitle
    ? { ...apiReply(parsed, input), text: titleFromPrompt(input.text.split('\n')[0] ?? '') }
    : apiReply(parsed, input);
  const knobs = ctx.core.knobs();
  const promptTokens = messages.reduce((sum, m) => sum + countWords(m.text), 0);
  const completionTokens = countWords(reply.text);
  const usage = {
    prompt_tokens: promptTokens,
    completion_tokens: completionTokens,
    total_tokens: promptTokens + completionTokens,
  };
  const id = newCompletionId();
  const created = Math.floor(Date.now() / 1000);
  const life = new AskLifecycle(ctx.res, ctx.record, ctx.core);

  if (!stream) {
    const chunks = chunkText(reply.text, knobs.chunkSize).length;
    const tokensPerChunk = Math.max(1, knobs.chunkSize / 4);
    const generation =
      knobs.tokensPerSecond > 0 ? (chunks * tokensPerChunk * 1000) / knobs.tokensPerSecond : 0;
    if (!(await sleep(knobs.firstTokenLatencyMs + generation, life.signal))) return;
    if (fault?.disconnectAfterChunks !== undefined) return life.destroy();
    if (fault?.stallAfterChunks !== undefined) return untilAborted(life.signal);
    life.end();
    if (fault?.malformedLineAfterChunks !== undefined) {
      ctx.res.writeHead(200, { 'content-type': 'application/json' });
      ctx.res.end('{not json');
      return;
    }
    if (fault?.errorInStream !== undefined) return apiError(ctx, 500, fault.errorInStream, 'server_error');
    return sendJson(ctx.res, 200, {
      id,
      object: 'chat.completion',
      created,
      model,
      choices: [
        {
          index: 0,
          message: { role: 'assistant', content: reply.text, refusal: null },
          logprobs: null,
          finish_reason: reply.finishReason,
        },
      ],
      usage,
      system_fingerprint: FINGERPRINT,
    });
  }

  const events = new EventStream(ctx.res, life, knobs, fault);
  const chunk = (choices: unknown[]): Record<string, unknown> => ({
    id,
    object: 'chat.completion.chunk',
    created,
    model,
    system_fingerprint: FINGERPRINT,
    choices,
    ...(includeUsage ? { usage: null } : {}),
  });
  const choice = (delta: Record<string, unknown>, finishReason: string | null): Record<string, unknown> => ({
    index: 0,
    delta,
    logprobs: null,
    finish_reason: finishReason,
  });
  events.open();
  if (!(await events.firstToken())) return;
  if (!(await events.send(chunk([choice({ role: 'assistant', content: '', refusal: null }, null)])))) return;
  let first = true;
  for (const piece of chunkText(reply.text, events.chunkSize)) {
    if (!(await events.send(chunk([choice({ content: piece }, null)]), events.tokensPerChunk))) return;
    if (first && fault?.errorInStream !== undefined) {
      await events.send({
        error: { message: fault.errorInStream, type: 'server_error', param: null, code: null },
      });
      events.close();
      return;
    }
    first = false;
  }
  if (!(await events.send(chunk([choice({}, reply.finishReason)])))) return;
  if (includeUsage) {
    const { usage: _omit, ...rest } = chunk([]);
    if (!(await events.send({ ...rest, usage }))) return;
  }
  await events.done();
}

function listModels(ctx: RequestContext): void {
  sendJson(ctx.res, 200, {
    object: 'list',
    data: API_MODELS.map((m) => ({ id: m.id, object: 'model', created: m.created, owned_by: m.owned_by })),
  });
}

function getModel(ctx: RequestContext): void {
  const m = API_MODELS.find((x) => x.id === param(ctx, 0));
  if (!m) {
    return apiError(
      ctx,
      404,
      `The model '${param(ctx, 0)}' does not exist`,
      'invalid_request_error',
      'model_not_found',
      'model',
    );
  }
  sendJson(ctx.res, 200, { id: m.id, object: 'model', created: m.created, owned_by: m.owned_by });
}

export const apiRoutes: Route[] = [
  { method: 'POST', pattern: /^\/v1\/chat\/completions$/, handler: chatCompletions },
  { method: 'GET', pattern: /^\/v1\/models$/, handler: listModels },
  { method: 'GET', pattern: /^\/v1\/models\/([^/]+)$/, handler: getModel },
];
