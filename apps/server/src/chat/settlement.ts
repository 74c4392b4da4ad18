import type { AskRequest } from '@cc/contracts';
import type { AppContext } from '../app-context';
import { askLogRepository } from '../repositories/ask-log.repository';
import { UpstreamTimeout } from '../sources/errors';
import type { TokenUsage } from '../sources/tokens';
import { askCost } from './quota-ledger';
import type { Reservation } from './quota-ledger';
import { QueueTimeoutError } from '../errors/queue-errors';
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

/** Writes the ask log row; a failure to write is logged, never thrown (the answer is already settled). */
export async function logAsk(ctx: AppContext, entry: AskLogEntry): Promise<void> {
  const { error } = entry;
  await askLogRepository(ctx.dbHandle.db)
    .insert({
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
    })
    .catch((err: unknown) => ctx.log.error({ err }, 'ask log write failed'));
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

/** The outcome the metrics count: the ask log's, or `refused` when a check stopped the ask before any charge. */
function countedOutcome(ask: EndedAsk, error: unknown): AskOutcome {
  if (!error) return 'success';
  const refused = !ask.leased && !ask.reservation && isAppError(error) && error.status < 500;
  return refused ? 'refused' : outcomeOf(error);
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

/**
 * Settles the charge and writes the ask log. An ask that produced an answer keeps its charge; one that did not is
 * refunded. Asks refused before the charge leave no row; asks that passed every check but never left the queue do.
 */
export async function settleAsk(
  ctx: AppContext,
  ask: EndedAsk,
  error: unknown,
  /** Overrides the outcome told by `error` (a shutdown's abort is `interrupted`, not `canceled`). */
  outcome?: Outcome,
): Promise<void> {
  let cost: number | null = null;
  if (ask.reservation) {
    if (ask.hasAnswer) {
      const { reservation } = ask;
      const real = ask.usage
        ? askCost(ctx.runtime.current().billing, ask.request.model, ask.usage)
        : reservation.charge.reserved;
      cost = await reservation.settle(real).catch((err: unknown) => {
        ctx.log.error({ err }, 'settling the cost failed');
        return reservation.charge.reserved;
      });
    } else await ask.reservation.refund().catch((err: unknown) => ctx.log.error({ err }, 'refund failed'));
  }
  countAsk(ctx, ask, error);
  if (!ask.leased && !ask.reservation) return;
  await logAsk(ctx, {
    request: ask.request,
    userId: ask.userId,
    conversationId: ask.conversationId,
    serverId: ask.serverId,
    queueSeconds: ask.leased ? ask.queueSeconds : (Date.now() - ask.startedAt) / 1000,
    askStartedAt: ask.leased ? ask.askStartedAt || ask.startedAt : Date.now(),
    outcome: outcome ?? (error ? outcomeOf(error) : 'success'),
    charged: ask.hasAnswer,
    error,
    usage: ask.usage ?? null,
    cost,
  });
}
