import { messageText } from '@cc/contracts';
import type { AskRequest, ChatMessage } from '@cc/contracts';
import type { AppContext } from '../app-context';
import type { ConversationRow, UserRow } from '../db/schema';
import { messageToRow } from '../presenters/conversation.presenter';
import { conversationRepository } from '../repositories/conversation.repository';
import { messageRepository } from '../repositories/message.repository';
import { estimateUsage } from '../sources/tokens';
import type { TokenUsage } from '../sources/tokens';
import type { Executor } from '../repositories/executor';
import type { AskInput, SourceAdapter } from '../sources/types';
import type { AnswerWrite, AnswerWriteSource } from './answer-writer';
import type { AnswerSink } from './frames';
import type { RunNote } from './running-asks';

/**
 * One streamed answer: frames to the client, messages to the database (with the other answers of this process
 * once a second by the answer writer — every few seconds when more stream than it writes a second — and at the
 * end by itself), the conversation row created once the answer is
 * worth keeping and updated at the end.
 */
export class StreamSession implements AnswerWriteSource {
  conversationId: string | null = null;
  hasAssistantContent = false;
  /** The upstream has sent at least one event (no failover after that). */
  upstreamStarted = false;
  /** When the first answer content arrived (ms since the epoch), 0 until then. */
  firstContentAt = 0;
  title: string | null = null;
  /**
   * The charged ask's record in flight (`running_asks`), when there is one: what it learns (its server, its first
   * answer) is written with the answer's next write, in the same transaction — the record names the conversation
   * once an answer is stored there.
   */
  runningAskId: string | null = null;
  /** The plugins of a new conversation (set by the pipeline from the adapter's check). */
  pluginIds: string[] | null = null;
  private conversationCreated = false;
  /** The conversation as stored: null while a new one has no row yet (nothing came back to keep). */
  get storedConversationId(): string | null {
    return this.conversationCreated ? this.conversationId : null;
  }
  /** The upstream named the conversation: it exists there, so it is recorded even if no answer follows. */
  private upstreamNamed = false;
  private readonly messages = new Map<string, ChatMessage>();
  private readonly dirty = new Set<string>();
  private readonly order: string[] = [];
  private flushing: Promise<void> = Promise.resolve();
  /** One of its own writes is under way (the batch leaves it alone meanwhile). */
  private writingItself = false;
  /** Messages were written as still streaming: the session's own next write finishes them. */
  private wroteStreaming = false;
  /** The ask ended: its last write is its own, and the answer writer's batch takes nothing from it any more. */
  private closed = false;
  private serverId: number | null = null;
  private lastAssistantId: string | null = null;
  private userMessage: ChatMessage | null = null;
  /** The upstream's token counts (or its adapter's estimate); null until the stream ended with them. */
  private usage: TokenUsage | null = null;
  private questionText: string | null = null;
  /** Progress of the ask in flight not yet written to its record. */
  private runNote: RunNote = {};
  /** The title changed after the conversation row was written: the next write updates it. */
  private titleDirty = false;
  /** Messages this session stored pointing at no file: written again without files, they have no links to replace. */
  private readonly linkless = new Set<string>();
  /**
   * The conversation's current node as this session last wrote it: while the answer streams, the conversation row
   * is written again only when its node changes (and at the end), not with every write of the messages.
   */
  private nodeWritten: string | null = null;

  constructor(
    private readonly ctx: AppContext,
    private readonly user: UserRow,
    private readonly request: AskRequest,
    private readonly sink: AnswerSink,
  ) {}

  /** The last assistant (or tool) message with content, for the title. */
  lastAnswer(): ChatMessage | null {
    return (this.lastAssistantId && this.messages.get(this.lastAssistantId)) || null;
  }

  /**
   * Tokens in and out of this ask: as the stream reported them, or (a stream cut before its end) estimated from the
   * question and the answer so far; null when nothing was sent upstream.
   */
  tokenUsage(): TokenUsage | null {
    if (this.usage) return this.usage;
    if (this.questionText === null) return null;
    const answer = this.lastAnswer();
    return estimateUsage(this.request.model, [this.questionText], answer ? messageText(answer) : '');
  }

  /** Runs one attempt against one server; throws what the upstream did. */
  async run(
    adapter: SourceAdapter,
    input: AskInput,
    serverId: number | null,
    existing: ConversationRow | null,
  ): Promise<void> {
    this.serverId = serverId;
    this.questionText = input.text;
    if (existing) {
      this.conversationId = existing.conversation_id;
      this.conversationCreated = true;
    } else {
      this.conversationId = input.conversationId;
    }
    this.userMessage = adapter.userMessage(input, new Date().toISOString());
    if (this.userMessage && this.conversationId) await this.track(this.userMessage);
    const streamEnded = this.ctx.metrics.streamStarted(this.request.source);
    try {
      await this.stream(adapter, input);
    } finally {
      streamEnded();
    }
    this.sink.endMessages();
    await this.flush(true);
  }

  /** Relays the upstream's events: the conversation id, titles and message snapshots. */
  private async stream(adapter: SourceAdapter, input: AskInput): Promise<void> {
    for await (const event of adapter.ask(input)) {
      this.upstreamStarted = true;
      switch (event.type) {
        case 'conversation':
          await this.named(event.conversationId);
          break;
        case 'title':
          // A title the user gave wins over the upstream's.
          if (this.conversationId && !this.request.new_title?.trim()) this.setTitle(event.title);
          break;
        case 'message': {
          const reading = this.track(event.message, event.appended);
          if (reading) await reading;
          break;
        }
        case 'usage':
          this.usage = event.usage;
          break;
      }
    }
  }

  /** The upstream gave the conversation's id: record it now, so that a stop before any answer orphans nothing. */
  private async named(conversationId: string): Promise<void> {
    this.conversationId = conversationId;
    this.upstreamNamed = true;
    // The ask's record names the conversation from the write that creates it (deleting it stops the ask).
    this.noteRun({ conversation_id: conversationId });
    if (this.userMessage && !this.messages.has(this.userMessage.id)) await this.track(this.userMessage);
    await this.flush();
  }

  /**
   * Keeps and relays a title (from the upstream during the stream, or generated after it); it is stored with the
   * answer's next write (the one at the end of the ask: `pendingTitle`).
   */
  setTitle(title: string): void {
    if (!this.conversationId) return;
    this.title = title;
    if (this.conversationCreated) this.titleDirty = true;
    this.sink.send({ type: 'message', conversation_id: this.conversationId, title });
  }

  /** Progress of the charged ask, written to its record with the answer's next write. */
  noteRun(patch: RunNote): void {
    this.runNote = { ...this.runNote, ...patch };
  }

  /** The title set since the last write, as a write for the transaction that ends the ask; null when none. */
  pendingTitle(): ((db: Executor) => Promise<void>) | null {
    if (!this.titleDirty || !this.conversationId) return null;
    const conversationId = this.conversationId;
    const title = this.title;
    return async (db) => {
      await conversationRepository(db).update(conversationId, { title });
      this.titleDirty = false;
    };
  }

  /**
   * Keeps and relays a message. Synchronous (no promise to wait for) unless its parent has to be read: a chunk of
   * a streamed answer takes no extra turn of the event loop.
   */
  private track(message: ChatMessage, appended?: string): Promise<void> | undefined {
    if (!this.conversationId) return;
    const m = this.withParent(message);
    if (m instanceof Promise) return m.then((read) => this.keep(read, appended));
    this.keep(m, appended);
  }

  private keep(m: ChatMessage, appended?: string): void {
    const conversationId = this.conversationId!;
    this.messages.set(m.id, m);
    this.dirty.add(m.id);
    if (m.role !== 'user' && m.content) {
      this.lastAssistantId = m.id;
      if (!this.hasAssistantContent && hasContent(m)) {
        this.hasAssistantContent = true;
        this.firstContentAt = Date.now();
        this.noteRun({ conversation_id: conversationId });
      }
    }
    this.sink.message(conversationId, m, appended);
    // Written with the other answers within about a second, a few under heavy load (also while the upstream pauses).
    this.ctx.answers.mark(this);
  }

  /**
   * A message keeps the parent it was first seen with; one the upstream sends without a parent keeps its stored one.
   */
  private withParent(m: ChatMessage): ChatMessage | Promise<ChatMessage> {
    const known = this.messages.get(m.id);
    if (known) return m.parent === known.parent ? m : { ...m, parent: known.parent };
    this.order.push(m.id);
    if (m.parent !== null || !this.conversationCreated) return m;
    return messageRepository(this.ctx.dbHandle.db)
      .findById(m.id)
      .then((stored) => ({ ...m, parent: stored?.parent ?? this.request.parent ?? null }));
  }

  /** Creates the conversation row if it is not there yet; true when this call created it. */
  private async ensureConversation(db: Executor): Promise<boolean> {
    if (this.conversationCreated || !this.conversationId) return false;
    this.conversationCreated = true;
    const now = new Date().toISOString();
    const title = this.request.new_title?.trim() || this.title;
    this.title = title;
    await conversationRepository(db).insert({
      conversation_id: this.conversationId,
      source: this.request.source,
      title,
      user_id: this.user.id,
      is_valid: 1,
      is_public: 0,
      current_model: this.request.model,
      current_node: null,
      server_id: this.serverId,
      plugin_ids: this.pluginIds ? JSON.stringify(this.pluginIds) : null,
      create_time: now,
      update_time: now,
    });
    return true;
  }

  /**
   * Writes changed messages; at the end also the conversation's current node and model. Nothing is written before
   * the answer has content or the upstream named the conversation: an ask that failed or stopped before that
   * leaves no record (and is refunded).
   */
  flush(final = false): Promise<void> {
    if (final) this.closed = true;
    // One write at a time: the batch's and the session's own never interleave.
    const next = this.flushing.then(async () => {
      this.writingItself = true;
      try {
        const write = this.collect(final, false);
        if (!write) return;
        try {
          await this.ctx.dbHandle.db.transaction().execute((trx) => write.apply(trx));
        } catch (err) {
          write.failed();
          throw err;
        }
      } finally {
        this.writingItself = false;
        // An ended ask's write that failed is not tried again by the batch (its conversation may be gone).
        if (this.closed) this.ctx.answers.forget(this);
        else if (this.dirty.size > 0) this.ctx.answers.mark(this);
      }
    });
    this.flushing = next.catch(() => undefined);
    return next;
  }

  /** The ask failed or was stopped: what arrived and is not written yet is written now, the session's last write. */
  close(): Promise<void> {
    this.closed = true;
    return this.flush();
  }

  /**
   * The conversation was destroyed: what arrived and is not written yet is dropped, and nothing more is written.
   * Resolves once a write under way ended.
   */
  discard(): Promise<void> {
    this.closed = true;
    this.dirty.clear();
    this.ctx.answers.forget(this);
    return this.flushing;
  }

  /**
   * The answer writer's batch: what changed since the last write (none while the session writes itself, nor once
   * the ask ended).
   */
  take(written: Promise<void>): AnswerWrite | null {
    if (this.writingItself || this.closed) return null;
    const write = this.collect(false, true);
    if (write) this.flushing = this.flushing.then(() => written).catch(() => undefined);
    return write;
  }

  /**
   * Takes the changed messages (and, at the end, the conversation's state) as one write; null when none.
   * `streaming`: a write of the answer writer's batch while the answer arrives (its messages are not searchable
   * yet); the session's own writes (at the end, or after a failure) finish every message it wrote.
   */
  private collect(final: boolean, streaming: boolean): AnswerWrite | null {
    if (!this.conversationId || !(this.hasAssistantContent || this.upstreamNamed)) return null;
    const conversationId = this.conversationId;
    const ids = [...this.dirty];
    const lastId = this.order[this.order.length - 1];
    const updateNode = !!lastId && (final || lastId !== this.nodeWritten);
    const finishes = !streaming && this.wroteStreaming;
    const title = this.titleDirty;
    if (ids.length === 0 && !updateNode && !finishes && !title && this.conversationCreated) return null;
    const rows = ids.map((id) => ({
      ...messageToRow(conversationId, this.messages.get(id)!, this.order.indexOf(id)),
      streaming: streaming ? 1 : 0,
    }));
    this.dirty.clear();
    this.titleDirty = false;
    const note = this.runningAskId && Object.keys(this.runNote).length > 0 ? this.runNote : null;
    if (note) this.runNote = {};
    const runningAskId = this.runningAskId;
    // Harmless when the write fails: finishing a conversation without streaming rows changes nothing.
    if (streaming && rows.length > 0) this.wroteStreaming = true;
    if (finishes) this.wroteStreaming = false;
    let created = false;
    return {
      apply: async (db) => {
        created = await this.ensureConversation(db);
        if (rows.length > 0) {
          // The messages of a conversation created by this very write are new: none has links to replace.
          const linkless = created ? new Set([...this.linkless, ...rows.map((r) => r.id)]) : this.linkless;
          const withoutLinks = new Set(await messageRepository(db).upsert(rows, linkless));
          for (const { id } of rows) {
            if (withoutLinks.has(id)) this.linkless.add(id);
            else this.linkless.delete(id);
          }
        }
        if (finishes) await messageRepository(db).finishStreaming(conversationId);
        if (updateNode || (title && !created)) {
          await conversationRepository(db).update(conversationId, {
            ...(updateNode && {
              current_node: lastId,
              current_model: this.request.model,
              update_time: new Date().toISOString(),
            }),
            ...(title && { title: this.title }),
          });
          if (updateNode) this.nodeWritten = lastId;
        }
        if (note && runningAskId) await this.ctx.running.note(db, runningAskId, note);
      },
      failed: () => {
        if (created) this.conversationCreated = false;
        if (title) this.titleDirty = true;
        // Newer progress wins over the note that failed.
        if (note) this.runNote = { ...note, ...this.runNote };
        if (finishes) this.wroteStreaming = true;
        for (const id of ids) {
          this.dirty.add(id);
          // What the rolled-back write seemed to store is not known any more.
          this.linkless.delete(id);
        }
        if (updateNode) this.nodeWritten = null;
      },
    };
  }
}

function hasContent(m: ChatMessage): boolean {
  const c = m.content as Record<string, unknown> | null | undefined;
  if (!c) return false;
  if (typeof c.text === 'string') return c.text.length > 0;
  if (Array.isArray(c.parts)) return c.parts.some((p) => (typeof p === 'string' ? p.length > 0 : true));
  return true;
}
