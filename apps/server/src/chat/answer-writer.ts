import type { FastifyBaseLogger } from 'fastify';
import type { Executor, Transactional } from '../repositories/executor';

/** What one streamed answer has to write: taken from it at once, written inside the batch's transaction. */
export interface AnswerWrite {
  apply(db: Executor): Promise<void>;
  /** The batch did not commit: the answer takes its changes back, to write them with a later flush. */
  failed(): void;
}

/** An answer with changes not yet written (a StreamSession). */
export interface AnswerWriteSource {
  /**
   * Its pending changes, or null when there are none. `written` settles when they are committed (or not): the
   * answer's own flushes wait for it, so writes of one answer never overtake each other.
   */
  take(written: Promise<void>): AnswerWrite | null;
}

/** How often the answers streaming here are written: what a client sees is at most about this far ahead. */
export const ANSWER_WRITE_INTERVAL_MS = 1000;
/**
 * Answers written at most per interval. Up to this many streaming at once, each is written every interval; beyond,
 * the ones written longest ago go first and each waits a few intervals (1,000 streams: every 4 s), so the database
 * work of streaming stays bounded however many answers stream (each write is the whole message so far, and at 1,000
 * streams the writes of every second took a tenth of the server's CPU).
 */
export const ANSWER_WRITES_PER_INTERVAL = 250;
/**
 * Answers written per transaction. Between two transactions the batch lets the event loop (and the other queries,
 * which wait for the connection while a transaction holds it) run.
 */
const PER_TRANSACTION = 50;

/** A promise the answers' own flushes wait on, settled when the write commits or fails. */
function writeOutcome(): { written: Promise<void>; settle: (error?: unknown) => void } {
  let settle!: (error?: unknown) => void;
  const written = new Promise<void>((resolve, reject) => {
    settle = (error) =>
      error === undefined
        ? resolve()
        : reject(error instanceof Error ? error : new Error('the write failed', { cause: error }));
  });
  // Observed by the answers' own flushes; an unobserved failure is not an error here.
  written.catch(() => undefined);
  return { written, settle };
}

const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

/**
 * Writes the changes of the answers streaming in this process together, once a second, in one transaction —
 * instead of a transaction and a conversation update per answer per second: PER_TRANSACTION answers to a
 * transaction, the event loop and other queries running between two, so frames and new asks never wait for the
 * whole batch; at most ANSWER_WRITES_PER_INTERVAL answers a second, those marked longest ago first. A batch that
 * fails (one bad row) is not lost: each answer gets its changes back and the next batch writes them.
 */
export class AnswerWriter {
  private readonly waiting = new Set<AnswerWriteSource>();
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<void> = Promise.resolve();
  private closed = false;

  constructor(
    private readonly db: Transactional,
    private readonly log: Pick<FastifyBaseLogger, 'error' | 'warn'>,
    private readonly intervalMs = ANSWER_WRITE_INTERVAL_MS,
    private readonly perInterval = ANSWER_WRITES_PER_INTERVAL,
  ) {}

  /** The answer has unwritten changes: the next batch writes them. */
  mark(source: AnswerWriteSource): void {
    if (this.closed) return;
    this.waiting.add(source);
    if (!this.timer) {
      this.timer = setInterval(() => void this.write(this.perInterval), this.intervalMs);
      this.timer.unref();
    }
  }

  /** The answer wrote its last changes itself: no batch needs it any more. */
  forget(source: AnswerWriteSource): void {
    this.waiting.delete(source);
  }

  /** Writes everything waiting now (shutdown and tests). */
  flush(): Promise<void> {
    return this.write(Infinity);
  }

  /** Writes up to `limit` of the answers waiting, those waiting longest first. One batch at a time. */
  private write(limit: number): Promise<void> {
    const next = this.running.then(() => this.batch(limit));
    this.running = next.catch(() => undefined);
    return next;
  }

  /** Stops the timer after writing what is waiting. */
  async close(): Promise<void> {
    this.closed = true;
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await this.flush();
  }

  private async batch(limit: number): Promise<void> {
    if (this.waiting.size === 0) {
      if (this.timer) clearInterval(this.timer);
      this.timer = null;
      return;
    }
    // The set keeps the order answers were marked in since their last write: the first ones waited longest.
    const sources: AnswerWriteSource[] = [];
    for (const source of this.waiting) {
      if (sources.length >= limit) break;
      sources.push(source);
    }
    for (const source of sources) this.waiting.delete(source);
    for (let start = 0; start < sources.length; start += PER_TRANSACTION) {
      if (start > 0) await nextTurn();
      await this.group(sources.slice(start, start + PER_TRANSACTION));
    }
  }

  /** Writes a group of answers in one transaction; on failure, each on its own. */
  private async group(sources: AnswerWriteSource[]): Promise<void> {
    const { written, settle } = writeOutcome();
    const writes = sources.flatMap((source) => {
      const write = source.take(written);
      return write ? [write] : [];
    });
    if (writes.length === 0) return settle();
    try {
      await this.db.transaction().execute(async (trx) => {
        for (const write of writes) await write.apply(trx);
      });
      settle();
    } catch (err) {
      for (const write of writes) write.failed();
      settle(err);
      // One answer's bad row must not hold back the others: each is written on its own now.
      for (const source of sources) await this.writeAlone(source);
    }
  }

  private async writeAlone(source: AnswerWriteSource): Promise<void> {
    const { written, settle } = writeOutcome();
    const write = source.take(written);
    if (!write) return settle();
    try {
      await this.db.transaction().execute((trx) => write.apply(trx));
      settle();
    } catch (err) {
      write.failed();
      this.log.error({ err }, 'writing a streaming answer failed; it is tried again with the next write');
      this.mark(source);
      settle(err);
    }
  }
}
