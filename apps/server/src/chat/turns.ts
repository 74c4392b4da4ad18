/** The real `setImmediate`, taken before any test replaces it with a fake: the queue always moves on. */
const nextTurn = setImmediate;

/**
 * Hands out turns of the event loop one at a time, in the order they were asked for: each caller resumes in an
 * event-loop turn of its own, after every earlier caller's.
 *
 * Asks start through it. Many asks that arrive together (one batch of socket reads) would otherwise all be
 * admitted before any of them gets further: with SQLite every query is synchronous, so each admission runs to its
 * end within the batch, and the upstream connection the first ask opened is written to only once the batch is over
 * — every ask then waits for the last one's admission. With a turn each, the first ask's upstream request goes
 * out (and its answer comes back) between the admissions of the later ones. Asks whose admission waits on I/O
 * (PostgreSQL, Redis) still overlap: a turn only orders the starts.
 */
export class TurnQueue {
  private readonly waiting: (() => void)[] = [];
  private scheduled = false;

  /** Resolves in a turn of its own, after the turns of every earlier caller. */
  turn(): Promise<void> {
    return new Promise((resolve) => {
      this.waiting.push(resolve);
      this.schedule();
    });
  }

  /** Callers waiting for their turn. */
  get size(): number {
    return this.waiting.length;
  }

  private schedule(): void {
    if (this.scheduled || this.waiting.length === 0) return;
    this.scheduled = true;
    // An immediate queued while immediates run goes to the next turn: I/O is polled in between.
    nextTurn(() => {
      this.scheduled = false;
      this.waiting.shift()?.();
      this.schedule();
    });
  }
}
