import type { AppContext } from '../app-context';
import { LEASE_RENEW_MS } from '../coordination/leases';
import type { RunningAskRow } from '../db/schema';
import { askLogRepository } from '../repositories/ask-log.repository';
import { messageRepository } from '../repositories/message.repository';
import { runningAskRepository } from '../repositories/running-ask.repository';
import type { Charge } from './quota-ledger';
import { refundCharge } from './quota-ledger';
import type { Executor } from '../repositories/executor';

/** What the record of an ask in flight learns as it runs: its server, its queueing, where its answer is stored. */
export type RunNote = Partial<
  Pick<RunningAskRow, 'server_id' | 'queueing_time' | 'ask_started_at' | 'conversation_id'>
>;

/** An ask whose instance has not renewed it for this long is settled by another instance as interrupted. */
export const INTERRUPTED_AFTER_MS = 10_000;
/** How often an instance looks for such asks. */
export const SWEEP_EVERY_MS = 5_000;
/** Asks settled per sweep at most (the next sweep takes the rest). */
const SWEEP_BATCH = 100;
/** Asks renewed per statement. */
const BEAT_BATCH = 500;

/**
 * The charged asks this instance runs, recorded in the database with a heartbeat: if the instance dies (kill -9),
 * another one finds them once the heartbeat is old and settles them as interrupted (see `settleInterrupted`).
 */
export class RunningAsks {
  private readonly asks = new Set<string>();
  private readonly timer: NodeJS.Timeout;

  constructor(
    private readonly ctx: Pick<AppContext, 'dbHandle' | 'log'>,
    /** This process: the rows it renews. */
    readonly instanceId: string,
  ) {
    this.timer = setInterval(() => void this.beat(), LEASE_RENEW_MS);
    this.timer.unref();
  }

  private repo() {
    return runningAskRepository(this.ctx.dbHandle.db);
  }

  /**
   * Records a charged ask that starts now, inside the transaction that charges it (`reserve`): a charge is never
   * committed without the record that lets another instance refund it if this one dies. `track` follows the commit.
   * `conversationId`: the conversation a follow-up continues (a new one is named once it is stored).
   */
  async record(
    trx: Executor,
    askId: string,
    charge: Charge,
    conversationId: string | null = null,
  ): Promise<void> {
    const now = new Date().toISOString();
    await runningAskRepository(trx).insert({
      ask_id: askId,
      instance_id: this.instanceId,
      user_id: charge.userId,
      conversation_id: conversationId,
      source: charge.source,
      model: charge.model,
      reserved: charge.reserved,
      reserved_day: charge.reservedDay,
      rate_event_id: charge.rateEventId,
      cap_event_id: charge.capEventId,
      queueing_time: 0,
      started_at: now,
      heartbeat_at: now,
    });
  }

  /** The ask recorded by `record` (now committed) runs here: its heartbeat is kept. */
  track(askId: string): void {
    this.asks.add(askId);
  }

  /**
   * Records progress (the server, the first stored answer) inside the caller's transaction; a write that fails
   * only costs precision if the instance dies.
   */
  async note(trx: Executor, askId: string, patch: RunNote): Promise<void> {
    if (this.asks.has(askId)) await runningAskRepository(trx).update(askId, patch);
  }

  /**
   * The ask ended here: its record goes, inside the transaction that settles it. False when another instance
   * already settled it (this one looked dead for a while): the caller must not settle it twice. An ask that was
   * never recorded (no charge) is this instance's to settle.
   */
  async claim(trx: Executor, askId: string): Promise<boolean> {
    if (!this.asks.has(askId)) return true;
    return runningAskRepository(trx).remove(askId);
  }

  /** The ask's record was claimed (its settling transaction committed): no more heartbeat for it. */
  untrack(askId: string): void {
    this.asks.delete(askId);
  }

  /**
   * The ask ended here but its settlement could not be written in one transaction: its record goes on its own.
   * False when another instance already settled it, or when the record could not be removed: it is no longer
   * renewed, so the sweep settles it (refunded, as interrupted) once — the caller must not settle it too.
   */
  async finish(askId: string): Promise<boolean> {
    if (!this.asks.delete(askId)) return true;
    try {
      return await this.repo().remove(askId);
    } catch (err) {
      this.ctx.log.warn({ err }, 'removing the record of an ask failed; the sweep settles it');
      return false;
    }
  }

  /** How many charged asks run here now. */
  get size(): number {
    return this.asks.size;
  }

  /** Renews the asks that run here, and only those: a record left behind by a failed settlement ages out. */
  private async beat(): Promise<void> {
    if (this.asks.size === 0) return;
    const at = new Date().toISOString();
    const ids = [...this.asks];
    try {
      for (let i = 0; i < ids.length; i += BEAT_BATCH)
        await this.repo().touch(this.instanceId, ids.slice(i, i + BEAT_BATCH), at);
    } catch (err) {
      this.ctx.log.warn({ err }, 'renewing the asks in flight failed');
    }
  }

  close(): void {
    clearInterval(this.timer);
  }
}

/**
 * Settles the asks of instances that died: each stale record is claimed once (conditional delete), and in the
 * same transaction its charge is refunded (an answer cut off with its instance is not the user's to pay, as with
 * any answer cut off by a failure) and its ask log row is written with the outcome `interrupted`. What arrived of the
 * answer is already stored (the stream is saved ≤1 s behind).
 */
export async function settleInterrupted(
  ctx: Pick<AppContext, 'dbHandle' | 'log'>,
  now = Date.now(),
): Promise<number> {
  const before = new Date(now - INTERRUPTED_AFTER_MS).toISOString();
  const ids = await runningAskRepository(ctx.dbHandle.db).listStale(before, SWEEP_BATCH);
  let settled = 0;
  for (const askId of ids) {
    const done = await ctx.dbHandle.db.transaction().execute(async (trx) => {
      const row = await runningAskRepository(trx).claimStale(askId, before);
      if (!row) return false;
      await refundCharge(trx, {
        userId: row.user_id,
        source: row.source,
        model: row.model,
        reserved: Number(row.reserved),
        reservedDay: row.reserved_day ?? row.started_at.slice(0, 10),
        rateEventId: row.rate_event_id,
        capEventId: row.cap_event_id,
      });
      await askLogRepository(trx).insert(interruptedLog(row, now));
      // What arrived of the cut-off answer is kept: finished, so it is searchable.
      if (row.conversation_id) await messageRepository(trx).finishStreaming(row.conversation_id);
      return true;
    });
    if (done) settled += 1;
  }
  if (settled > 0) ctx.log.warn({ settled }, 'settled the asks of an instance that stopped');
  return settled;
}

function interruptedLog(row: RunningAskRow, now: number) {
  const askStarted = row.ask_started_at ? Date.parse(row.ask_started_at) : null;
  // The answer ran until the instance's last heartbeat, as far as anyone knows.
  const end = Date.parse(row.heartbeat_at);
  return {
    time: new Date(now).toISOString(),
    source: row.source,
    model: row.model,
    user_id: row.user_id,
    conversation_id: row.conversation_id,
    server_id: row.server_id,
    queueing_time: row.queueing_time,
    ask_time: askStarted ? Math.max(0, end - askStarted) / 1000 : 0,
    outcome: 'interrupted',
    charged: 0,
    cost: null,
    error: 'the instance running the ask stopped',
  };
}
