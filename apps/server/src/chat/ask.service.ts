import { randomUUID } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { CHAT_CLOSE, TIPS } from '@cc/contracts';
import type { AskRequest } from '@cc/contracts';
import type { AppContext } from '../app-context';
import type { UserRow } from '../db/schema';
import { fail } from '../errors/app-error';
import { describeFailure, toErrorFrame } from '../errors/describe-failure';
import { conversationRepository } from '../repositories/conversation.repository';
import { UpstreamEmptyAnswer } from '../sources/errors';
import type { AskInput, SourceAdapter } from '../sources/types';
import { admitAsk } from './admission';
import { pathContext } from './context-path';
import type { Admission } from './admission';
import type { AnswerSink } from './frames';
import { waitForFirstServer, withFailover } from './queue';
import type { QueueRequest } from './queue';
import type { Reservation } from './quota-ledger';
import type { Lease } from '../coordination/queue';
import type { StopReason } from '../coordination/answer-log';
import { LEASE_RENEW_MS, LEASE_TTL_MS } from '../coordination/leases';
import { ServerDrainingError, coordinationCall } from '../errors/queue-errors';
import { isAbort, settleAsk } from './settlement';
import type { EndedAsk } from './settlement';
import { StreamSession } from './stream-session';
import { finishTitle } from './title';

/**
 * How long a user's "asking" lease lives without renewal; renewed while the ask runs. Short, so that the users of
 * an instance that died can ask again (through another one) within seconds.
 */
const STATUS_LEASE_SECONDS = LEASE_TTL_MS / 1000;

/**
 * Why an ask's signal was aborted (its `reason`): a stop asked for (see StopReason), or the instance shuts down (the
 * answer is kept as a cut-off answer).
 */
export type AbortCause = StopReason | 'shutdown';

export interface AskQuestionInput {
  /** The answer's id (the client's `ask_id`, or one the server made up). */
  askId: string;
  /** The logged-in user (already authenticated). */
  user: UserRow;
  request: AskRequest;
  sink: AnswerSink;
  /** Aborted (with an AbortCause as reason) when the ask is stopped. */
  signal: AbortSignal;
}

/** One ask while it runs: what settlement needs when it ends, however it ends. */
interface AskRun extends AskQuestionInput {
  adapter: SourceAdapter;
  session: StreamSession;
  startedAt: number;
  /** When its admission started (`performance.now()`): the checks' time is measured from here. */
  admittingSince: number;
  lease: Lease | null;
  reservation: Reservation | null;
  askStartedAt: number;
  /** Lets the next ask be admitted (once this one has a server, or ended). */
  started: () => void;
}

/**
 * One question, end to end: admission (checks and charge) → queue → stream session (with failover) → title →
 * settlement and ask log → close. Whatever happens, the user's chat status and the server slot are released and
 * nothing is charged for an ask that produced no answer.
 */
export async function askQuestion(ctx: AppContext, input: AskQuestionInput): Promise<void> {
  const arrived = performance.now();
  // One at a time, in arrival order (see StartQueue).
  const started = await ctx.starts.enter();
  const admittingSince = performance.now();
  ctx.metrics.admissionStep(input.request.source, 'turn', (admittingSince - arrived) / 1000);
  try {
    await askAdmitted(ctx, input, started, admittingSince);
  } finally {
    started();
  }
}

async function askAdmitted(
  ctx: AppContext,
  input: AskQuestionInput,
  started: () => void,
  admittingSince: number,
): Promise<void> {
  const { user, sink } = input;
  const status = ctx.coordination.chatStatus;
  let acquired: boolean;
  try {
    acquired = await coordinationCall(() => status.tryAcquire(user.id, STATUS_LEASE_SECONDS));
  } catch (e) {
    // Redis is out: refused at once, nothing charged; asking again works once it is back.
    return reportFailure(ctx, sink, e, null);
  }
  if (!acquired) {
    sink.send({ type: 'error', tip: CHAT_CLOSE.moreThanOneClient.reason, error_detail: null });
    sink.close(CHAT_CLOSE.moreThanOneClient.code, CHAT_CLOSE.moreThanOneClient.reason);
    return;
  }
  // Only now, with the lock held, does this answer become the user's current one (a refused second ask must not
  // replace the log of the answer that runs).
  await sink.open().catch((err: unknown) => ctx.log.warn({ err }, 'the answer cannot be resumed'));
  const heartbeat = setInterval(() => {
    status
      .renew(user.id, STATUS_LEASE_SECONDS)
      .catch((err: unknown) => ctx.log.warn({ err }, 'renewing the chat status failed'));
  }, LEASE_RENEW_MS);
  const run: AskRun = {
    ...input,
    adapter: ctx.adapters.get(input.request.source),
    session: new StreamSession(ctx, user, input.request, sink),
    startedAt: Date.now(),
    admittingSince,
    lease: null,
    reservation: null,
    askStartedAt: 0,
    started,
  };
  try {
    await runAsk(ctx, run);
  } finally {
    clearInterval(heartbeat);
    // (runAsk settled the ask; its record in flight is gone.)
    run.lease?.release();
    await status
      .release(user.id)
      .catch((err: unknown) => ctx.log.warn({ err }, 'releasing the chat status failed'));
  }
}

async function runAsk(ctx: AppContext, run: AskRun): Promise<void> {
  const { request, sink, session, adapter } = run;
  try {
    // A follow-up's record names its conversation from the start: deleting the conversation stops it even queued.
    const continued = request.new_conversation ? null : (request.conversation_id ?? null);
    const admission = await admitAsk(ctx, run.user, request, adapter, (trx, charge) =>
      ctx.running.record(trx, run.askId, charge, continued),
    );
    run.reservation = admission.reservation;
    ctx.metrics.admissionStep(request.source, 'checks', (performance.now() - run.admittingSince) / 1000);
    ctx.running.track(run.askId);
    session.runningAskId = run.askId;
    const queue: QueueRequest = {
      userId: run.user.id,
      source: request.source,
      preferServerId: admission.conversation?.server_id ?? null,
      sink,
      signal: run.signal,
    };
    run.lease = await waitForFirstServer(ctx, queue);
    run.started();
    sink.send({ type: 'waiting', tip: TIPS.waiting, conversation_id: request.conversation_id ?? null });
    run.askStartedAt = Date.now();
    session.noteRun({
      server_id: run.lease.server.id,
      queueing_time: run.lease.queuedSeconds,
      ask_started_at: new Date(run.askStartedAt).toISOString(),
    });
    const input = askInput(ctx, run, admission, run.lease);
    const own = adapter.userTarget(
      admission.setting,
      input.target,
      (sealed) => ctx.secretBox.open(sealed),
      ctx.runtime.current(),
    );
    session.pluginIds = admission.pluginIds;
    const attempt = (lease: Lease) => {
      input.target = own ?? ctx.upstream.target(request.source, lease.server);
      return session.run(adapter, input, lease.server.id, admission.conversation);
    };
    const canRetry = () => !own && !session.upstreamStarted;
    await withFailover(ctx, queue, run.lease, attempt, canRetry, (lease) => (run.lease = lease));
    // A stream that ended without any answer content (e.g. only a content filter verdict) is a failure: refunded,
    // no record, and the user is told.
    if (!session.hasAssistantContent) throw new UpstreamEmptyAnswer();
    await finishTitle(ctx, adapter, request, session, input);
    await settleAsk(ctx, ended(run), null, { askId: run.askId, alongside: session.pendingTitle() });
    sink.close(CHAT_CLOSE.finished.code, CHAT_CLOSE.finished.reason);
  } catch (e) {
    const cause = isAbort(e) ? (run.signal.reason as AbortCause) : null;
    // A destroyed conversation took its messages along: what had not been written yet goes nowhere either.
    if (cause === 'conversationVanished') await session.discard();
    else
      await session
        .close()
        .catch((err: unknown) => ctx.log.error({ err }, 'flushing a partial answer failed'));
    const shutdown = cause === 'shutdown';
    await settleAsk(ctx, ended(run), e, { askId: run.askId, outcome: shutdown ? 'interrupted' : undefined });
    // A conversation deleted or destroyed while its answer ran is said as such (the answer was stopped at once).
    if (cause === 'conversationVanished') reportFailure(ctx, sink, fail.conversationNotFound(), null);
    else if (cause === 'conversationInvalidated')
      reportFailure(ctx, sink, fail.conversationAlreadyDeleted(), null);
    else if (isAbort(e)) sink.close(...closeOfAbort(cause ?? 'user'));
    // Still queued when the instance began to drain: refused as a new ask is then, to be asked again elsewhere.
    else if (e instanceof ServerDrainingError)
      sink.close(CHAT_CLOSE.draining.code, CHAT_CLOSE.draining.reason);
    // Destroyed before its stop could reach the answer (a vanish racing its start): said the same way.
    else if (await destroyed(ctx, session.storedConversationId))
      reportFailure(ctx, sink, fail.conversationNotFound(), null);
    // (A new conversation that failed before anything was kept is not named: there is nothing to open.)
    else reportFailure(ctx, sink, e, session.storedConversationId);
  }
}

/** Whether the conversation an ask wrote to is gone (false when it cannot be told: the database failing too). */
async function destroyed(ctx: AppContext, conversationId: string | null): Promise<boolean> {
  if (!conversationId) return false;
  const row = await conversationRepository(ctx.dbHandle.db)
    .findByUuid(conversationId)
    .catch(() => null);
  return row === undefined;
}

/** How a stopped answer closes: stopped by the user, refused (deactivated), or cut off by a shutdown. */
function closeOfAbort(cause: 'user' | 'deactivated' | 'shutdown'): [number, string] {
  const close =
    cause === 'deactivated'
      ? CHAT_CLOSE.unauthorized
      : cause === 'shutdown'
        ? CHAT_CLOSE.interrupted
        : CHAT_CLOSE.stopped;
  return [close.code, close.reason];
}

function ended(run: AskRun): EndedAsk {
  return {
    request: run.request,
    userId: run.user.id,
    reservation: run.reservation,
    serverId: run.lease?.server.id ?? null,
    leased: run.lease !== null,
    conversationId: run.session.conversationId,
    hasAnswer: run.session.hasAssistantContent,
    startedAt: run.startedAt,
    queueSeconds: run.lease?.queuedSeconds ?? 0,
    askStartedAt: run.askStartedAt,
    firstTokenAt: run.session.firstContentAt,
    usage: run.session.tokenUsage(),
  };
}

/** Everything the adapter needs for one ask; the target is set per attempt. */
function askInput(ctx: AppContext, run: AskRun, admission: Admission, lease: Lease): AskInput {
  const { request } = run;
  const mapping = ctx.runtime.current()[request.source].model_code_mapping as Record<string, string>;
  const reverse = new Map(Object.entries(mapping).map(([name, code]) => [code, name]));
  const conversationId = admission.conversation?.conversation_id ?? run.adapter.newConversationId();
  const { question, parent } = admission;
  return {
    target: ctx.upstream.target(request.source, lease.server),
    model: request.model,
    modelCode: mapping[request.model] ?? request.model,
    modelNameOf: (code) => (code ? (reverse.get(code) ?? code) : null),
    // A regenerate answers the stored question, whatever text came with it.
    text: question?.text ?? request.text_content,
    conversationId,
    newConversation: request.new_conversation,
    parent,
    userMessageId: question?.id ?? randomUUID(),
    askAgain: question !== null,
    pluginIds: admission.pluginIds,
    attachments: request.openai_web_attachments ?? [],
    imageParts: request.openai_web_multimodal_image_parts ?? [],
    loadContext: (count) =>
      admission.conversation
        ? pathContext(ctx, admission.conversation.conversation_id, parent, count)
        : Promise.resolve([]),
    contextCount: request.api_context_message_count,
    signal: run.signal,
  };
}

/** Tells the client what went wrong (the same description as HTTP errors) and closes with its code. */
function reportFailure(ctx: AppContext, sink: AnswerSink, e: unknown, conversationId: string | null): void {
  const failure = describeFailure(e);
  if (failure.level !== 'none') ctx.log[failure.level]({ err: e, ...failure.log }, 'ask failed');
  sink.send(toErrorFrame(failure, conversationId));
  sink.close(failure.close.code, failure.close.reason);
}
