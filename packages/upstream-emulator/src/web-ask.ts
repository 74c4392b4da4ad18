/**
 * `POST /backend-api/conversation`: the web ask. The response is an event stream of full cumulative snapshots
 * (`data: {"message": …, "conversation_id": …, "error": null}`), a `title_generation` event for new
 * conversations, and `data: [DONE]`.
 */
import { randomUUID } from 'node:crypto';
import type { RequestContext, Route } from './context';
import { hasStatus, mergeFaults, sendStatusFault } from './faults';
import type { PlannedMessage, PromptAttachment, PromptImage, PromptInput } from './scenarios';
import { continuationText, parsePrompt, webReply } from './scenarios';
import type { Conversation, WebMessage } from './state';
import { AskLifecycle, EventStream } from './stream';
import { chunkText, titleFromPrompt } from './text';
import type { Fault } from './types';
import { epochSeconds, isRecord } from './util';
import { findConversation, messageText, webError } from './web-routes';

const STOP_DETAILS = { type: 'stop', stop_tokens: [100260] };
const MAX_TOKENS_DETAILS = { type: 'max_tokens' };
const INTERRUPTED_DETAILS = { type: 'interrupted' };

interface UserMessageIn {
  id: string;
  content: Record<string, unknown>;
  metadata: Record<string, unknown>;
  input: PromptInput;
}

/** Validates the last user message of the request; returns an error text on failure. */
function readUserMessage(messages: unknown): UserMessageIn | string {
  if (!Array.isArray(messages) || messages.length === 0) return 'messages must be a non-empty array';
  const users = messages.filter(
    (m) => isRecord(m) && (!isRecord(m['author']) || m['author']['role'] === 'user'),
  );
  const raw: unknown = users[users.length - 1];
  if (!isRecord(raw)) return 'messages must contain a user message';
  const content = raw['content'];
  if (!isRecord(content)) return 'message content is required';
  const type = content['content_type'];
  if (type !== 'text' && type !== 'multimodal_text') return 'content_type must be text or multimodal_text';
  const parts = content['parts'];
  if (!Array.isArray(parts)) return 'content.parts must be an array';
  const texts: string[] = [];
  const images: PromptImage[] = [];
  for (const part of parts) {
    if (typeof part === 'string') texts.push(part);
    else if (isRecord(part) && typeof part['asset_pointer'] === 'string') {
      images.push({
        assetPointer: part['asset_pointer'],
        width: typeof part['width'] === 'number' ? part['width'] : undefined,
        height: typeof part['height'] === 'number' ? part['height'] : undefined,
      });
    } else return 'content.parts may only hold strings and image parts';
  }
  const metadata = isRecord(raw['metadata']) ? raw['metadata'] : {};
  const attachments: PromptAttachment[] = [];
  if (Array.isArray(metadata['attachments'])) {
    for (const a of metadata['attachments']) {
      if (!isRecord(a)) continue;
      attachments.push({
        id: typeof a['id'] === 'string' ? a['id'] : undefined,
        name: typeof a['name'] === 'string' ? a['name'] : undefined,
        size: typeof a['size'] === 'number' ? a['size'] : undefined,
      });
    }
  }
  return {
    id: typeof raw['id'] === 'string' && raw['id'] !== '' ? raw['id'] : randomUUID(),
    content,
    metadata,
    input: { text: texts.join('\n'), images, attachments },
  };
}

function systemRoot(id: string, now: number): WebMessage {
  return {
    id,
    author: { role: 'system', name: null, metadata: {} },
    create_time: now,
    update_time: null,
    content: { content_type: 'text', parts: [''] },
    status: 'finished_successfully',
    end_turn: true,
    weight: 0,
    metadata: { is_visually_hidden_from_conversation: true },
    recipient: 'all',
  };
}

function attach(conv: Conversation, message: WebMessage, parent: string): void {
  conv.mapping[message.id] = { id: message.id, message, parent, children: [] };
  conv.mapping[parent]?.children.push(message.id);
  conv.currentNode = message.id;
  conv.updateTime = epochSeconds();
}

/** Marks messages cut short by a disconnect as the upstream does after a stop. */
function finalizePartial(messages: WebMessage[]): void {
  for (const m of messages) {
    if (m.status !== 'in_progress') continue;
    m.status = 'finished_partial_completion';
    m.metadata['finish_details'] = INTERRUPTED_DETAILS;
    m.update_time = epochSeconds();
  }
}

/** Streams snapshots and applies the `errorInStream` fault after the first assistant event. */
class SnapshotWriter {
  errored = false;
  private assistantEvents = 0;

  constructor(
    private readonly stream: EventStream,
    private readonly conversationId: string,
    private readonly errorText: string | undefined,
  ) {}

  /** False when the stream must stop. */
  async snapshot(message: WebMessage, tokens: number): Promise<boolean> {
    const ok = await this.stream.send({ message, conversation_id: this.conversationId, error: null }, tokens);
    if (!ok) return false;
    this.assistantEvents++;
    if (this.errorText !== undefined && this.assistantEvents === 1) {
      if (
        await this.stream.send({ message: null, conversation_id: this.conversationId, error: this.errorText })
      ) {
        this.errored = true;
      }
      return false;
    }
    return true;
  }
}

function baseMetadata(model: string, parent: string): Record<string, unknown> {
  return {
    citations: [],
    gizmo_id: null,
    message_type: 'next',
    model_slug: model,
    default_model_slug: model,
    parent_id: parent,
    timestamp_: 'absolute',
  };
}

function codePointLength(text: string): number {
  let n = 0;
  for (const _ of text) n++;
  return n;
}

/** Streams one planned message as snapshots; false when the stream must stop. */
async function streamPlanned(
  writer: SnapshotWriter,
  stream: EventStream,
  message: WebMessage,
  planned: PlannedMessage,
): Promise<boolean> {
  const content = planned.content;
  if (content.kind !== 'static') {
    let text = '';
    let length = 0;
    for (const piece of chunkText(content.text, stream.chunkSize)) {
      text += piece;
      length += codePointLength(piece);
      message.content =
        content.kind === 'text'
          ? { content_type: 'text', parts: [text] }
          : { content_type: 'code', language: content.language, text };
      if (planned.citations)
        message.metadata['citations'] = planned.citations.filter((c) => c.end_ix <= length);
      if (!(await writer.snapshot(message, stream.tokensPerChunk))) return false;
    }
  } else {
    message.content = content.content;
  }
  message.status = 'finished_successfully';
  message.end_turn = planned.endTurn;
  message.update_time = epochSeconds();
  if (planned.citations) message.metadata['citations'] = planned.citations;
  if (planned.finish) {
    message.metadata['finish_details'] = planned.finish === 'stop' ? STOP_DETAILS : MAX_TOKENS_DETAILS;
    message.metadata['is_complete'] = true;
  }
  return writer.snapshot(message, content.kind === 'static' ? 1 : 0);
}

interface AskBody {
  /** `next`: a new question; `variant`: answer the question `messages[0]` (already under `parent_message_id`) again. */
  action: 'next' | 'variant' | 'continue';
  model: string;
  parentId: string;
  conversationId: string | null;
  pluginIds: string[] | null;
}

function readBody(body: unknown): AskBody | string {
  if (!isRecord(body)) return 'Body must be a JSON object';
  const action = body['action'];
  if (action !== 'next' && action !== 'variant' && action !== 'continue')
    return 'action must be "next", "variant" or "continue"';
  const model = body['model'];
  if (typeof model !== 'string' || model === '') return 'model is required';
  const parentId = body['parent_message_id'];
  if (typeof parentId !== 'string' || parentId === '') return 'parent_message_id is required';
  const conversationId = body['conversation_id'];
  if (conversationId !== undefined && conversationId !== null && typeof conversationId !== 'string') {
    return 'conversation_id must be a string or null';
  }
  const rawPlugins = body['plugin_ids'];
  const pluginIds = Array.isArray(rawPlugins)
    ? rawPlugins.filter((p): p is string => typeof p === 'string')
    : null;
  return { action, model, parentId, conversationId: conversationId ?? null, pluginIds };
}

async function handleAsk(ctx: RequestContext): Promise<void> {
  if (ctx.bodyInvalid) return webError(ctx, 400, 'Request body is not valid JSON');
  const ask = readBody(ctx.body);
  if (typeof ask === 'string') return webError(ctx, 422, ask);
  const user =
    ask.action === 'continue' ? null : readUserMessage(isRecord(ctx.body) ? ctx.body['messages'] : undefined);
  if (typeof user === 'string') return webError(ctx, 422, user);

  const parsed = user ? parsePrompt(user.input.text) : null;
  const fault = mergeFaults(ctx.core.takeFault(), parsed?.fault ?? null);
  if (hasStatus(fault)) return sendStatusFault(ctx.res, fault, 'web');

  if (ask.action === 'continue') return continueAnswer(ctx, ask, fault);
  if (!user || !parsed) return;

  const now = epochSeconds();
  let conv: Conversation | undefined;
  const isNew = ask.conversationId === null;
  const variant = ask.action === 'variant';
  if (variant && isNew) return webError(ctx, 400, 'conversation_id is required for a variant');
  if (isNew) {
    conv = {
      id: randomUUID(),
      title: 'New chat',
      createTime: now,
      updateTime: now,
      mapping: {
        [ask.parentId]: {
          id: ask.parentId,
          message: systemRoot(ask.parentId, now),
          parent: null,
          children: [],
        },
      },
      currentNode: ask.parentId,
      pluginIds: ask.pluginIds,
      model: ask.model,
      isVisible: true,
      kernelStartedAt: null,
      seq: ctx.core.state.nextConversationSeq(),
    };
  } else {
    conv = findConversation(ctx, ask.conversationId ?? '');
    if (!conv) return;
    if (!conv.mapping[ask.parentId]) return webError(ctx, 400, `Parent message ${ask.parentId} not found`);
  }
  const asked = conv.mapping[user.id];
  if (variant) {
    if (asked?.message?.author.role !== 'user' || asked.parent !== ask.parentId)
      return webError(ctx, 400, `Message ${user.id} is not a question under ${ask.parentId}`);
  } else if (asked) return webError(ctx, 409, `Message ${user.id} already exists`);
  if (isNew) ctx.core.state.conversations.set(conv.id, conv);
  conv.model = ask.model;

  const userMessage: WebMessage = asked?.message ?? {
    id: user.id,
    author: { role: 'user', name: null, metadata: {} },
    create_time: now,
    update_time: null,
    content: user.content,
    status: 'finished_successfully',
    end_turn: null,
    weight: 1,
    metadata: { ...user.metadata, timestamp_: 'absolute', message_type: null },
    recipient: 'all',
  };
  if (!variant) attach(conv, userMessage, ask.parentId);

  const reply = webReply(parsed, user.input, {
    plugins: ctx.core.state.plugins,
    pluginIds: conv.pluginIds,
    uploadedFile: (id) => {
      const f = ctx.core.state.files.get(id);
      return f?.bytes && f.uploadedConfirmed ? { size: f.bytes.length } : undefined;
    },
  });
  for (const f of reply.files) ctx.core.state.addGeneratedFile(f.id, f.name, f.mimeType, f.bytes);

  const life = new AskLifecycle(ctx.res, ctx.record, ctx.core);
  const stream = new EventStream(ctx.res, life, ctx.core.knobs(), fault);
  const writer = new SnapshotWriter(stream, conv.id, fault?.errorInStream);
  const produced: WebMessage[] = [];
  stream.open();

  // A variant answers a question the conversation already holds: only the new answer streams.
  let ok = variant || (await stream.send({ message: userMessage, conversation_id: conv.id, error: null }));
  ok = ok && (await stream.firstToken());
  let parent = userMessage.id;
  for (const planned of reply.messages) {
    if (!ok) break;
    const message: WebMessage = {
      id: randomUUID(),
      author: { role: planned.role, name: planned.name, metadata: {} },
      create_time: epochSeconds(),
      update_time: null,
      content:
        planned.content.kind === 'code'
          ? { content_type: 'code', language: planned.content.language, text: '' }
          : { content_type: 'text', parts: [''] },
      status: 'in_progress',
      end_turn: null,
      weight: 1,
      metadata: { ...baseMetadata(ask.model, parent), ...planned.metadata },
      recipient: planned.recipient,
    };
    attach(conv, message, parent);
    produced.push(message);
    if (planned.role === 'tool' && planned.name === 'python') conv.kernelStartedAt ??= Date.now();
    ok = await streamPlanned(writer, stream, message, planned);
    parent = message.id;
  }

  if (ok && isNew) {
    conv.title = titleFromPrompt(parsed.clean);
    ok = await stream.send({ type: 'title_generation', title: conv.title, conversation_id: conv.id });
  }
  if (ok || writer.errored) {
    finalizePartial(produced);
    await stream.done();
    return;
  }
  finalizePartial(produced);
}

/** `action: "continue"`: appends to the assistant message `parent_message_id`, same id. */
async function continueAnswer(ctx: RequestContext, ask: AskBody, fault: Fault | null): Promise<void> {
  if (ask.conversationId === null) return webError(ctx, 400, 'conversation_id is required to continue');
  const conv = findConversation(ctx, ask.conversationId);
  if (!conv) return;
  const node = conv.mapping[ask.parentId];
  const message = node?.message;
  if (
    !node ||
    !message ||
    message.author.role !== 'assistant' ||
    message.content['content_type'] !== 'text'
  ) {
    return webError(
      ctx,
      400,
      `Message ${ask.parentId} is not an assistant text message that can be continued`,
    );
  }
  let prompt = '';
  for (let up = node.parent === null ? undefined : conv.mapping[node.parent]; up;) {
    if (up.message?.author.role === 'user') {
      prompt = messageText(up.message);
      break;
    }
    up = up.parent === null ? undefined : conv.mapping[up.parent];
  }
  const finish = message.metadata['finish_details'];
  const wasCutOff = isRecord(finish) && finish['type'] === 'max_tokens';
  const extra = continuationText(prompt, wasCutOff);
  const base = messageText(message);

  const life = new AskLifecycle(ctx.res, ctx.record, ctx.core);
  const stream = new EventStream(ctx.res, life, ctx.core.knobs(), fault);
  const writer = new SnapshotWriter(stream, conv.id, fault?.errorInStream);
  stream.open();
  conv.currentNode = message.id;
  conv.model = ask.model;
  message.status = 'in_progress';
  message.end_turn = null;
  message.metadata['model_slug'] = ask.model;
  delete message.metadata['finish_details'];
  delete message.metadata['is_complete'];
  conv.updateTime = epochSeconds();

  // Stream only the new text, but every snapshot carries the whole message.
  let text = base;
  let done = await stream.firstToken();
  if (done) {
    for (const piece of chunkText(extra, stream.chunkSize)) {
      text += piece;
      message.content = { content_type: 'text', parts: [text] };
      if (!(await writer.snapshot(message, stream.tokensPerChunk))) {
        done = false;
        break;
      }
    }
  }
  if (done) {
    message.status = 'finished_successfully';
    message.end_turn = true;
    message.update_time = epochSeconds();
    message.metadata['finish_details'] = STOP_DETAILS;
    message.metadata['is_complete'] = true;
    done = await writer.snapshot(message, 0);
  }
  finalizePartial([message]);
  if (done || writer.errored) await stream.done();
}

export const webAskRoutes: Route[] = [
  { method: 'POST', pattern: /^\/backend-api\/conversation$/, handler: handleAsk },
];
