import { randomUUID } from 'node:crypto';
import { CHAT_CLOSE, TIPS, isModelOfSource, upstreamErrorKey } from '@cc/contracts';
import type { AskRequest, ChatMessage, ChatSource, Config } from '@cc/contracts';
import type { AppContext } from '../app-context';
import type { ConversationRow, UserRow } from '../db/schema';
import { fail, isAppError } from '../errors/app-error';
import { NoServerError, QueueTimeoutError } from '../errors/queue-errors';
import { askLogRepository } from '../repositories/ask-log.repository';
import { conversationRepository } from '../repositories/conversation.repository';
import { messageRepository } from '../repositories/message.repository';
import { messageToRow } from '../presenters/conversation.presenter';
import { UpstreamError, UpstreamNetworkError, UpstreamTimeout } from '../sources/errors';
import { generateApiTitle, openaiApiAdapter } from '../sources/openai-api';
import { openaiWebAdapter, webClient, webUserMessage } from '../sources/openai-web';
import type { AskInput, SourceAdapter, UpstreamTarget } from '../sources/types';
import { assertAskFilesUsable } from '../services/file.service';
import { getUser } from '../services/user.service';
import { joinSettings } from '../services/user-settings';
import type { FrameSink } from './frames';
import { FrameEncoder } from './frames';
import { checkQuota, reserve } from './quota-ledger';
import type { Reservation } from './quota-ledger';
import type { Lease } from './scheduler';

const ADAPTERS: Record<ChatSource, SourceAdapter> = {
  openai_web: openaiWebAdapter,
  openai_api: openaiApiAdapter,
};

/** How long a user's "asking" lease lives without renewal; renewed while the ask runs. */
const STATUS_LEASE_SECONDS = 60;
/** Streamed answers are written at most this far behind. */
const FLUSH_INTERVAL_MS = 1000;
const TITLE_TIMEOUT_MS = 10_000;

export interface AskQuestionInput {
  /** The logged-in user (already authenticated). */
  user: UserRow;
  request: AskRequest;
  sink: FrameSink;
  /** Aborted when the client goes away (stop). */
  signal: AbortSignal;
}

type Outcome = 'success' | 'canceled' | 'error' | 'timeout';

function isAbort(e: unknown): boolean {
  return (e as { name?: string } | null)?.name === 'AbortError';
}

/** Desensitized upstream detail: no e-mail addresses, URLs reduced to their scheme. */
function desensitize(text: string): string {
  return text
    .replace(/[\w.+-]+@[\w-]+(\.[\w-]+)+/g, '***@***')
    .replace(/https?:\/\/[^\s"']+/g, (u) => `${u.slice(0, u.indexOf('//') + 4)}***`)
    .slice(0, 1000);
}

function modelNameMapper(config: Config, source: ChatSource) {
  const mapping: Record<string, string> =
    source === 'openai_web' ? config.openai_web.model_code_mapping : config.openai_api.model_code_mapping;
  const reverse = new Map(Object.entries(mapping).map(([name, code]) => [code, name]));
  return (code: string | null | undefined) => (code ? (reverse.get(code) ?? code) : null);
}

/** Path from the root to `parent` (oldest first), as API context, limited to the last `count` (-1 = all). */
async function apiContext(ctx: AppContext, conversationId: string, parent: string | null, count: number) {
  if (!parent || count === 0) return [];
  const rows = await messageRepository(ctx.dbHandle.db).listByConversation(conversationId);
  const byId = new Map(rows.map((r) => [r.id, r]));
  if (!byId.has(parent)) throw fail.invalidParams('parent is not a message of this conversation');
  const path: { role: 'user' | 'assistant' | 'system'; content: string }[] = [];
  for (let cur = byId.get(parent); cur; cur = cur.parent ? byId.get(cur.parent) : undefined) {
    if ((cur.role === 'user' || cur.role === 'assistant' || cur.role === 'system') && cur.text) {
      path.push({ role: cur.role, content: cur.text });
    }
    if (path.length > 10_000) break;
  }
  path.reverse();
  return count === -1 ? path : path.slice(-count);
}

/**
 * One question, end to end: checks, charge, queue, stream, persist, settle or refund, ask log, title, close.
 * Whatever happens, the user's chat status and the server slot are released and nothing is charged for an ask
 * that produced no answer.
 */
export async function askQuestion(ctx: AppContext, input: AskQuestionInput): Promise<void> {
  const { user, request, sink, signal } = input;
  const status = ctx.coordination.chatStatus;
  if (!(await status.tryAcquire(user.id, STATUS_LEASE_SECONDS))) {
    sink.send({ type: 'error', tip: CHAT_CLOSE.moreThanOneClient.reason, error_detail: null });
    sink.close(CHAT_CLOSE.moreThanOneClient.code, CHAT_CLOSE.moreThanOneClient.reason);
    return;
  }
  const renew = setInterval(
    () => void status.renew(user.id, STATUS_LEASE_SECONDS),
    (STATUS_LEASE_SECONDS * 1000) / 3,
  );
  let lease: Lease | null = null;
  let reservation: Reservation | null = null;
  const started = Date.now();
  let queueSeconds = 0;
  let askStart = 0;
  const session = new StreamSession(ctx, user, request);
  try {
    const source = request.source;
    const config = ctx.runtime.current();
    if (!isModelOfSource(source, request.model))
      throw fail.invalidParams(`unknown model ${request.model} for ${source}`);
    let conversation: ConversationRow | undefined;
    if (!request.new_conversation) {
      conversation = await conversationRepository(ctx.dbHandle.db).findByUuid(request.conversation_id!);
      if (!conversation) throw fail.conversationNotFound();
      if (conversation.user_id !== user.id && user.is_superuser !== 1) throw fail.accessDenied();
      if (!conversation.is_valid) throw fail.conversationAlreadyDeleted();
      if (conversation.source !== source) throw fail.invalidParams('source does not match the conversation');
    }
    const plugins = request.openai_web_plugin_ids ?? [];
    if (
      plugins.length > 0 &&
      (source !== 'openai_web' || request.model !== 'gpt_4_plugins' || !request.new_conversation)
    ) {
      throw fail.invalidParams('plugins need a new openai_web gpt_4_plugins conversation');
    }
    const loaded = await getUser(ctx, user.id);
    const setting = joinSettings(loaded.setting, loaded.counters);
    await checkQuota(ctx, {
      userId: user.id,
      setting,
      source,
      model: request.model,
      newConversation: request.new_conversation,
      hasAttachments: (request.openai_web_attachments?.length ?? 0) > 0,
      hasImages: (request.openai_web_multimodal_image_parts?.length ?? 0) > 0,
    });
    await assertAskFilesUsable(
      ctx,
      user,
      request.openai_web_attachments ?? [],
      request.openai_web_multimodal_image_parts ?? [],
    );
    reservation = await reserve(ctx, user.id, source, request.model);

    const global = source === 'openai_web' ? config.openai_web : config.openai_api;
    const preferKey = conversation?.server_id ? `db:${conversation.server_id}` : null;
    await status.set(user.id, 'queueing');
    if (await ctx.scheduler.isBusy(source)) {
      // The exact position follows as soon as the ask is in the queue.
      sink.send({
        type: 'queueing',
        tip: TIPS.queueing,
        position: (await ctx.scheduler.snapshot(source)).waiting + 1,
      });
    }
    const acquire = (excludeKeys: string[]) =>
      ctx.scheduler.acquire({
        source,
        preferKey,
        excludeKeys,
        signal,
        timeoutMs: global.queue_timeout * 1000,
        onPosition: (position) => sink.send({ type: 'queueing', tip: TIPS.queueing, position }),
      });
    lease = await acquire([]);
    queueSeconds = lease.queuedSeconds;
    await status.set(user.id, 'asking');
    sink.send({ type: 'waiting', tip: TIPS.waiting, conversation_id: request.conversation_id ?? null });
    askStart = Date.now();

    const context =
      source === 'openai_api' && conversation
        ? await apiContext(
            ctx,
            conversation.conversation_id,
            request.parent ?? null,
            request.api_context_message_count,
          )
        : [];
    const modelCode = (global.model_code_mapping as Record<string, string>)[request.model] ?? request.model;
    const askInput: AskInput = {
      target: ctx.upstream.target(source, lease.server),
      model: request.model,
      modelCode,
      modelNameOf: modelNameMapper(config, source),
      text: request.text_content,
      conversationId: conversation?.conversation_id ?? null,
      parent: request.parent ?? null,
      userMessageId: randomUUID(),
      continueAnswer:
        source === 'openai_web' && request.text_content === ':continue' && !request.new_conversation,
      context,
      pluginIds: plugins.length > 0 ? plugins : null,
      attachments: request.openai_web_attachments ?? [],
      imageParts: request.openai_web_multimodal_image_parts ?? [],
      signal,
    };
    const customTarget = await customApiTarget(ctx, setting, source, askInput.target);
    // Fail over to another server of the source while the upstream has not sent anything yet.
    const tried: string[] = [];
    for (;;) {
      askInput.target = customTarget ?? ctx.upstream.target(source, lease.server);
      try {
        await session.run(ADAPTERS[source], askInput, lease.server.id, conversation, sink);
        break;
      } catch (e) {
        tried.push(lease.server.key);
        const others = ctx.upstream.servers(source).some((s) => !tried.includes(s.key));
        if (customTarget || session.upstreamStarted || !others || !canFailOver(e)) throw e;
        ctx.log.warn(
          { err: e, server: lease.server.key },
          'upstream failed before the first token, failing over',
        );
        lease.release();
        lease = null;
        lease = await acquire(tried);
      }
    }
    // A stream that ended without any answer content (e.g. only a content filter verdict) is a failure: refunded,
    // no record, and the user is told.
    if (!session.hasAssistantContent) throw new UpstreamError(null, 'the upstream answer had no content');
    await session.finishTitle(askInput, sink, signal);
    reservation.settle();
    await logAsk(ctx, session, request, user, lease.server.id, queueSeconds, askStart, 'success', null);
    sink.close(CHAT_CLOSE.finished.code, CHAT_CLOSE.finished.reason);
  } catch (e) {
    const outcome: Outcome = isAbort(e)
      ? 'canceled'
      : e instanceof UpstreamTimeout || e instanceof QueueTimeoutError
        ? 'timeout'
        : 'error';
    await session.flush().catch((err: unknown) => ctx.log.error({ err }, 'flushing a partial answer failed'));
    if (reservation) {
      if (session.hasAssistantContent) reservation.settle();
      else await reservation.refund().catch((err: unknown) => ctx.log.error({ err }, 'refund failed'));
    }
    if (lease) {
      const server = lease.server.id;
      await logAsk(ctx, session, request, user, server, queueSeconds, askStart || started, outcome, e);
    } else if (reservation) {
      // It passed every check but never left the queue (timeout, the client left, no server online).
      const queued = (Date.now() - started) / 1000;
      await logAsk(ctx, session, request, user, null, queued, Date.now(), outcome, e);
    }
    if (!isAbort(e)) reportFailure(ctx, sink, e);
  } finally {
    clearInterval(renew);
    lease?.release();
    await status.release(user.id);
  }
}

/** Failures that say nothing about the question itself: another server may answer it. */
function canFailOver(e: unknown): boolean {
  if (e instanceof UpstreamNetworkError || e instanceof UpstreamTimeout) return true;
  return e instanceof UpstreamError && e.status !== null && (e.status >= 500 || e.status === 429);
}

function reportFailure(ctx: AppContext, sink: FrameSink, e: unknown): void {
  const frame = (tip: string, detail: string | null, close: { code: number; reason: string }) => {
    sink.send({ type: 'error', tip, error_detail: detail });
    sink.close(close.code, close.reason || tip);
  };
  if (isAppError(e)) {
    const detail =
      e.result == null ? null : typeof e.result === 'string' ? e.result : JSON.stringify(e.result);
    return frame(e.messageKey, detail, { code: CHAT_CLOSE.refused.code, reason: e.messageKey });
  }
  if (e instanceof QueueTimeoutError)
    return frame('errors.queueTimeout', null, { code: 1001, reason: 'errors.queueTimeout' });
  if (e instanceof NoServerError)
    return frame('errors.config', 'no upstream server is online', CHAT_CLOSE.unknownError);
  if (e instanceof UpstreamError)
    return frame(upstreamErrorKey(e.status), desensitize(e.body), CHAT_CLOSE.upstreamError);
  if (e instanceof UpstreamTimeout) return frame('errors.timeout', null, CHAT_CLOSE.timeout);
  if (e instanceof UpstreamNetworkError)
    return frame('errors.httpError', desensitize(e.message), CHAT_CLOSE.httpError);
  ctx.log.error({ err: e }, 'ask failed');
  return frame('errors.unknownError', null, CHAT_CLOSE.unknownError);
}

async function customApiTarget(
  ctx: AppContext,
  setting: ReturnType<typeof joinSettings>,
  source: ChatSource,
  base: UpstreamTarget,
): Promise<UpstreamTarget | null> {
  if (source !== 'openai_api' || !setting.openai_api.allow_custom_openai_api) return null;
  const custom = setting.openai_api.custom_openai_api_settings;
  if (!custom.url) return null;
  return {
    ...base,
    baseUrl: custom.url,
    serverId: null,
    token: custom.key ? ctx.secretBox.open(custom.key) : null,
  };
}

async function logAsk(
  ctx: AppContext,
  session: StreamSession,
  request: AskRequest,
  user: UserRow,
  serverId: number | null,
  queueSeconds: number,
  askStart: number,
  outcome: Outcome,
  error: unknown,
): Promise<void> {
  await askLogRepository(ctx.dbHandle.db)
    .insert({
      time: new Date().toISOString(),
      source: request.source,
      model: request.model,
      user_id: user.id,
      conversation_id: session.conversationId,
      server_id: serverId,
      queueing_time: Math.round(queueSeconds * 1000) / 1000,
      ask_time: Math.round(Date.now() - askStart) / 1000,
      outcome,
      charged: session.hasAssistantContent ? 1 : 0,
      error: error ? String((error as Error).message ?? error).slice(0, 500) : null,
    })
    .catch((err: unknown) => ctx.log.error({ err }, 'ask log write failed'));
}

/**
 * One streamed answer: frames to the client, messages to the database (at most ~1 s behind, and at the end),
 * the conversation row created on the first event and updated at the end.
 */
class StreamSession {
  conversationId: string | null = null;
  hasAssistantContent = false;
  /** The upstream has sent at least one event (no failover after that). */
  upstreamStarted = false;
  private conversationCreated = false;
  private title: string | null = null;
  private readonly messages = new Map<string, ChatMessage>();
  private readonly dirty = new Set<string>();
  private readonly order: string[] = [];
  private lastFlush = 0;
  private flushing: Promise<void> = Promise.resolve();
  private seq = 0;
  private serverId: number | null = null;
  private lastAssistantId: string | null = null;
  private userMessage: ChatMessage | null = null;

  constructor(
    private readonly ctx: AppContext,
    private readonly user: UserRow,
    private readonly request: AskRequest,
  ) {}

  async run(
    adapter: SourceAdapter,
    input: AskInput,
    serverId: number | null,
    existing: ConversationRow | undefined,
    sink: FrameSink,
  ): Promise<void> {
    this.serverId = serverId;
    const encoder = new FrameEncoder(this.request.stream_mode);
    if (existing) {
      this.conversationId = existing.conversation_id;
      this.conversationCreated = true;
    } else if (this.request.source === 'openai_api') {
      this.conversationId = randomUUID();
    }
    if (!input.continueAnswer) {
      this.userMessage = {
        id: input.userMessageId,
        source: this.request.source,
        role: 'user',
        author_name: null,
        model: null,
        create_time: new Date().toISOString(),
        parent: input.parent,
        children: [],
        ...(this.request.source === 'openai_api'
          ? { content: { content_type: 'text', text: input.text }, metadata: {} }
          : webUserMessage(input)),
      } as ChatMessage;
      if (this.conversationId) await this.track(this.userMessage, sink, encoder);
    }
    // While the upstream pauses, what arrived is still saved at most ~1 s later.
    const timer = setInterval(() => {
      if (this.dirty.size > 0 && Date.now() - this.lastFlush >= FLUSH_INTERVAL_MS)
        this.flush().catch((err: unknown) => this.ctx.log.error({ err }, 'flushing the answer failed'));
    }, FLUSH_INTERVAL_MS / 2);
    try {
      await this.stream(adapter, input, sink, encoder);
    } finally {
      clearInterval(timer);
    }
    for (const id of encoder.pendingFull()) {
      const m = this.messages.get(id);
      if (m && this.conversationId)
        sink.send({ type: 'message', conversation_id: this.conversationId, message: m });
    }
    await this.flush(true);
  }

  /** Relays the upstream's events: the conversation id, titles and message snapshots. */
  private async stream(
    adapter: SourceAdapter,
    input: AskInput,
    sink: FrameSink,
    encoder: FrameEncoder,
  ): Promise<void> {
    for await (const event of adapter.ask(input)) {
      this.upstreamStarted = true;
      if (event.type === 'conversation') {
        this.conversationId = event.conversationId;
        if (this.userMessage && !this.messages.has(this.userMessage.id))
          await this.track(this.userMessage, sink, encoder);
        continue;
      }
      if (!this.conversationId) continue;
      if (event.type === 'title') {
        // A title the user gave wins over the upstream's.
        if (this.request.new_title?.trim()) continue;
        this.title = event.title;
        if (this.conversationCreated) {
          await conversationRepository(this.ctx.dbHandle.db).update(this.conversationId, {
            title: event.title,
          });
        }
        sink.send({ type: 'message', conversation_id: this.conversationId, title: event.title });
        continue;
      }
      await this.track(event.message, sink, encoder);
    }
  }

  private async track(message: ChatMessage, sink: FrameSink, encoder: FrameEncoder): Promise<void> {
    if (!this.conversationId) return;
    let m = message;
    const known = this.messages.get(m.id);
    if (!known) {
      this.order.push(m.id);
      if (m.parent === null && this.request.text_content === ':continue') {
        const stored = await messageRepository(this.ctx.dbHandle.db).findById(m.id);
        m = { ...m, parent: stored?.parent ?? this.request.parent ?? null };
      }
    } else if (m.parent !== known.parent) {
      m = { ...m, parent: known.parent };
    }
    this.messages.set(m.id, m);
    this.dirty.add(m.id);
    if (m.role !== 'user' && m.content) {
      this.lastAssistantId = m.id;
      if (!this.hasAssistantContent && hasContent(m)) this.hasAssistantContent = true;
    }
    sink.send(encoder.encode(this.conversationId, m));
    if (Date.now() - this.lastFlush >= FLUSH_INTERVAL_MS) await this.flush();
  }

  private async ensureConversation(): Promise<void> {
    if (this.conversationCreated || !this.conversationId) return;
    this.conversationCreated = true;
    const now = new Date().toISOString();
    const title = this.request.new_title?.trim() || this.title;
    this.title = title;
    await conversationRepository(this.ctx.dbHandle.db).insert({
      conversation_id: this.conversationId,
      source: this.request.source,
      title,
      user_id: this.user.id,
      is_valid: 1,
      is_public: 0,
      current_model: this.request.model,
      current_node: null,
      server_id: this.serverId,
      plugin_ids: this.request.openai_web_plugin_ids?.length
        ? JSON.stringify(this.request.openai_web_plugin_ids)
        : null,
      create_time: now,
      update_time: now,
    });
  }

  /**
   * Writes changed messages; at the end also the conversation's current node and model. Nothing is written
   * before the answer has content: an ask that failed or stopped before that leaves no record (and is refunded).
   */
  flush(final = false): Promise<void> {
    // One write at a time: the timer's flush and the stream's never interleave.
    const next = this.flushing.then(() => this.write(final));
    this.flushing = next.catch(() => undefined);
    return next;
  }

  private async write(final: boolean): Promise<void> {
    this.lastFlush = Date.now();
    if (!this.conversationId || !this.hasAssistantContent) return;
    await this.ensureConversation();
    const rows = [...this.dirty].map((id) =>
      messageToRow(this.conversationId!, this.messages.get(id)!, this.seqOf(id)),
    );
    this.dirty.clear();
    if (rows.length > 0) await messageRepository(this.ctx.dbHandle.db).upsert(rows);
    const lastId = this.order[this.order.length - 1];
    if (lastId && (final || rows.length > 0)) {
      await conversationRepository(this.ctx.dbHandle.db).update(this.conversationId, {
        current_node: lastId,
        current_model: this.request.model,
        update_time: new Date().toISOString(),
      });
    }
  }

  private seqOf(id: string): number {
    const i = this.order.indexOf(id);
    return i < 0 ? this.seq++ : i;
  }

  /** A new conversation without a title gets one: web from the upstream, API from a short completion. */
  async finishTitle(input: AskInput, sink: FrameSink, signal: AbortSignal): Promise<void> {
    if (!this.request.new_conversation || !this.conversationId) return;
    const given = this.request.new_title?.trim();
    const db = this.ctx.dbHandle.db;
    if (given) {
      if (this.request.source === 'openai_web') {
        await webClient(input.target)
          .patchConversation(this.conversationId, { title: given })
          .catch((err: unknown) => this.ctx.log.warn({ err }, 'setting the upstream title failed'));
      }
      return;
    }
    if (this.title) return;
    const timeout = AbortSignal.any([signal, AbortSignal.timeout(TITLE_TIMEOUT_MS)]);
    let title: string | null = null;
    try {
      if (this.request.source === 'openai_web') {
        if (this.lastAssistantId) {
          const r = await webClient({ ...input.target, readTimeoutMs: TITLE_TIMEOUT_MS }).genTitle(
            this.conversationId,
            this.lastAssistantId,
          );
          title = r.title ?? null;
        }
      } else {
        const answer = this.lastAssistantId ? this.messages.get(this.lastAssistantId) : undefined;
        const answerText = answer?.source === 'openai_api' ? (answer.content?.text ?? '') : '';
        title = await generateApiTitle(input.target, input.modelCode, input.text, answerText, timeout);
      }
    } catch (err) {
      this.ctx.log.warn({ err }, 'title generation failed');
    }
    title ??= input.text.trim().slice(0, 40) || null;
    if (!title) return;
    this.title = title;
    await conversationRepository(db).update(this.conversationId, { title });
    sink.send({ type: 'message', conversation_id: this.conversationId, title });
  }
}

function hasContent(m: ChatMessage): boolean {
  const c = m.content as Record<string, unknown> | null | undefined;
  if (!c) return false;
  if (typeof c.text === 'string') return c.text.length > 0;
  if (Array.isArray(c.parts)) return c.parts.some((p) => (typeof p === 'string' ? p.length > 0 : true));
  return true;
}
