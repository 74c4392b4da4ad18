import type { AskRequest } from '@cc/contracts';
import type { AppContext } from '../app-context';
import { askLogRepository } from '../repositories/ask-log.repository';
import { UpstreamTimeout } from '../sources/errors';
import type { TokenUsage } from '../sources/tokens';
import type { NewAskLogRow } from '../db/schema';
import type { Executor } from '../repositories/executor';
import { askCost, refundCharge, settleCharge } from './quota-ledger';
import type { Reservation } from './quota-ledger';
import { QueueTimeoutError, ServerDrainingError } from '../errors/queue-errors';
import { isAppError } from '../errors/app-error';
import type { AskOutcome } from '../metrics/metrics';

/** `interrupted`: the instance shut down or died before the answer ended (a cut-off answer, kept). */
export type Outcome = 'success' | 'canceled' | 'error' | 'timeout' | 'interrupted';

export function isAbort(e: unknown): boolean {
  return (e as { name?: string } | null)?.name === 'AbortError';
}

export function outcomeOf(e: unknown): Outcome {
  if (isAbort(e)) return 'canceled';
  return e instanceof UpstreamTimeout || e instanceof QueueTimeoutError ? 'timeout' : 'error';
}

/** One row of the ask log. */
export interface AskLogEntry {
  request: Pick<AskRequest, 'source' | 'model'>;
  userId: number;
  conversationId: string | null;
  /** The server that answered; null when the ask never left the queue. */
  serverId: number | null;
  queueSeconds: number;
  /** When the upstream was asked (ms since the epoch). */
  askStartedAt: number;
  outcome: Outcome;
  charged: boolean;
  error: unknown;
  /** Tokens in and out; null when the ask never reached an upstream. */
  usage?: TokenUsage | null;
  /** What the ask was charged against the budgets, micros; null when nothing. */
  cost?: number | null;
}

/** The ask log row of an entry. */
function askLogRow(entry: AskLogEntry): NewAskLogRow {
  const { error } = entry;
  return {
    time: new Date().toISOString(),
    source: entry.request.source,
    model: entry.request.model,
    user_id: entry.userId,
    conversation_id: entry.conversationId,
    server_id: entry.serverId,
    queueing_time: Math.round(entry.queueSeconds * 1000) / 1000,
    ask_time: Math.round(Date.now() - entry.askStartedAt) / 1000,
    outcome: entry.outcome,
    charged: entry.charged ? 1 : 0,
    input_tokens: entry.usage?.inputTokens ?? null,
    output_tokens: entry.usage?.outputTokens ?? null,
    tokens_estimated: entry.usage ? (entry.usage.estimated ? 1 : 0) : null,
    cost: entry.cost ?? null,
    error: error ? String((error as Error).message ?? error).slice(0, 500) : null,
  };
}

/** What settlement needs to know about an ask that ended. */
export interface EndedAsk {
  request: Pick<AskRequest, 'source' | 'model'>;
  userId: number;
  reservation: Reservation | null;
  /** The server that was asked; null when the ask never left the queue. */
  serverId: number | null;
  leased: boolean;
  conversationId: string | null;
  hasAnswer: boolean;
  startedAt: number;
  queueSeconds: number;
  askStartedAt: number;
  /** When the first answer content arrived (ms since the epoch), 0 when none did. */
  firstTokenAt: number;
  /** Tokens in and out; null when the ask never reached an upstream. */
  usage?: TokenUsage | null;
}

/**
 * An ask handed back to its client before it started (the instance drains): refunded and not logged, as if refused
 * (its client asks again elsewhere).
 */
function handedBack(error: unknown): boolean {
  return error instanceof ServerDrainingError;
}

/**
 * The outcome the metrics count: the ask log's, or `refused` when a check stopped the ask before any charge (or it
 * was handed back).
 */
function countedOutcome(ask: EndedAsk, error: unknown): AskOutcome {
  if (!error) return 'success';
  const refused = !ask.leased && !ask.reservation && isAppError(error) && error.status < 500;
  return refused || handedBack(error) ? 'refused' : outcomeOf(error);
}

function countAsk(ctx: AppContext, ask: EndedAsk, error: unknown): void {
  const asked = ask.leased && ask.askStartedAt > 0;
  ctx.metrics.askEnded({
    ...ask.request,
    outcome: countedOutcome(ask, error),
    answerSeconds: asked ? (Date.now() - ask.askStartedAt) / 1000 : null,
    firstTokenSeconds: asked && ask.firstTokenAt > 0 ? (ask.firstTokenAt - ask.askStartedAt) / 1000 : null,
  });
}

export interface SettleOptions {
  /** Overrides the outcome told by `error` (a shutdown's abort is `interrupted`, not `canceled`). */
  outcome?: Outcome;
  /** The ask's record in flight (`running_asks`), claimed in the settling transaction. */
  askId?: string;
  /** Written in the same transaction, whoever settles (the title the ask ended with). */
  alongside?: ((trx: Executor) => Promise<void>) | null;
}

/**
 * Whether an ask keeps its charge: it answered, and ended as its user wanted — in full, or stopped by them. An
 * answer the upstream broke off, that timed out or that a shutdown cut off is refunded, whatever had arrived of it.
 */
function keepsCharge(ask: EndedAsk, outcome: Outcome): boolean {
  return ask.hasAnswer && (outcome === 'success' || outcome === 'canceled');
}

/** What the ask is charged in the end (micros): the real cost when it keeps its charge; null otherwise. */
function costOf(ctx: AppContext, ask: EndedAsk, charged: boolean): number | null {
  if (!ask.reservation || !charged) return null;
  return ask.usage
    ? askCost(ctx.runtime.current().billing, ask.request.model, ask.usage)
    : ask.reservation.charge.reserved;
}

/**
 * Settles the charge and writes the ask log, in one transaction with the removal of the ask's record in flight:
 * an ask is settled once, by this instance or (if it looked dead) by another, never half. An ask that answered in
 * full or was stopped by its user keeps its charge; any other is refunded (see `keepsCharge`). Asks refused before the
 * charge leave no row, nor do asks handed back by a draining instance; other asks that never left the queue do. If that
 * transaction fails, each part is written on its own.
 */
export async function settleAsk(
  ctx: AppContext,
  ask: EndedAsk,
  error: unknown,
  options: SettleOptions = {},
): Promise<void> {
  const { askId, alongside } = options;
  const outcome = options.outcome ?? (error ? outcomeOf(error) : 'success');
  const charged = keepsCharge(ask, outcome);
  const real = costOf(ctx, ask, charged);
  const logged = (ask.leased || ask.reservation !== null) && !handedBack(error);
  const entry = (cost: number | null): AskLogEntry => ({
    request: ask.request,
    userId: ask.userId,
    conversationId: ask.conversationId,
    serverId: ask.serverId,
    queueSeconds: ask.leased ? ask.queueSeconds : (Date.now() - ask.startedAt) / 1000,
    askStartedAt: ask.leased ? ask.askStartedAt || ask.startedAt : Date.now(),
    outcome,
    charged,
    error,
    usage: ask.usage ?? null,
    cost,
  });
  if (!alongside && !ask.reservation && !logged) {
    // Refused before any charge: nothing to write.
    countAsk(ctx, ask, error);
    return;
  }
  let settled: boolean;
  try {
    settled = await ctx.dbHandle.db.transaction().execute(async (trx) => {
      await alongside?.(trx);
      if (askId && !(await ctx.running.claim(trx, askId))) return false;
      let cost: number | null = null;
      if (ask.reservation) {
        if (real !== null) cost = await settleCharge(trx, ask.reservation.charge, real);
        else await refundCharge(trx, ask.reservation.charge);
      }
      if (logged) await askLogRepository(trx).insert(askLogRow(entry(cost)));
      return true;
    });
    if (askId) ctx.running.untrack(askId);
  } catch (err) {
    ctx.log.error({ err }, 'settling the ask in one transaction failed; writing each part on its own');
    settled = await settleInParts(ctx, ask, entry, real, logged, options);
  }
  if (settled) countAsk(ctx, ask, error);
}

/** The fallback of `settleAsk`: the record, the charge and the log each written on their own, failures logged. */
async function settleInParts(
  ctx: AppContext,
  ask: EndedAsk,
  entry: (cost: number | null) => AskLogEntry,
  real: number | null,
  /** Whether the ask gets an ask log row. */
  logged: boolean,
  { askId, alongside }: SettleOptions,
): Promise<boolean> {
  if (alongside)
    await ctx.dbHandle.db
      .transaction()
      .execute(alongside)
      .catch((err: unknown) => ctx.log.warn({ err }, 'storing the title failed'));
  if (askId && !(await ctx.running.finish(askId))) return false;
  let cost: number | null = null;
  if (ask.reservation) {
    const { reservation } = ask;
    if (real !== null)
      cost = await reservation.settle(real).catch((err: unknown) => {
        ctx.log.error({ err }, 'settling the cost failed');
        return reservation.charge.reserved;
      });
    else await reservation.refund().catch((err: unknown) => ctx.log.error({ err }, 'refund failed'));
  }
  if (logged)
    await askLogRepository(ctx.dbHandle.db)
      .insert(askLogRow(entry(cost)))
      .catch((err: unknown) => ctx.log.error({ err }, 'ask log write failed'));
  return true;
}
