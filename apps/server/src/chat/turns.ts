import { performance } from 'node:perf_hooks';

/** The real `setImmediate`, taken before any test replaces it with a fake: the queue always moves on. */
const realSetImmediate = setImmediate;

/**
 * How long asks may be admitted back to back before the event loop gets a turn for I/O, ms. Long enough that the
 * admissions of a burst keep most of the CPU (with one admission per turn, the later asks' first tokens waited
 * behind the streaming of the earlier ones), short enough that the event loop never stalls for a whole burst.
 */
export const START_SLICE_MS = 60;

export interface StartQueueOptions {
  /** The slice, ms (0: one ask per turn). */
  sliceMs?: number;
  /** The clock the slice is measured with, ms. */
  now?: () => number;
  /** Runs a callback in a later turn of the event loop, after I/O was polled. */
  nextTurn?: (run: () => void) => void;
}

/**
 * Admits asks one at a time, in arrival order, in slices of the event loop.
 *
 * Many asks that arrive together (one batch of socket reads) were admitted in lockstep: every admission is a chain
 * of awaits, the chains interleave, and with SQLite (synchronous queries) all of them run to their end within the
 * batch — the upstream connection the first ask opened is written to only once the batch is over, so every ask
 * waited for the last one's admission, and the event loop stalled for the whole batch. Here an ask is admitted
 * alone until it lets go (it has a server, or it ended), the next one right after it; once a slice is used up, the
 * event loop polls I/O before the next admission: the upstream requests of the asks admitted so far go out (and
 * their answers come in) between the admissions of the later ones. An ask that waits on I/O in its admission
 * (PostgreSQL, Redis, a full queue) holds the others up until the next turn at most.
 */
export class StartQueue {
  private readonly waiting: ((leave: () => void) => void)[] = [];
  /** The ask being admitted now, if any. */
  private current: symbol | null = null;
  /** Until when asks may be admitted in this turn (on `now`'s clock). */
  private sliceEnds = -Infinity;
  private scheduled = false;
  private readonly sliceMs: number;
  private readonly now: () => number;
  private readonly nextTurn: (run: () => void) => void;

  constructor(options: StartQueueOptions = {}) {
    this.sliceMs = options.sliceMs ?? START_SLICE_MS;
    this.now = options.now ?? (() => performance.now());
    this.nextTurn = options.nextTurn ?? ((run) => void realSetImmediate(run));
  }

  /** Waits for this ask's turn; the function it resolves to lets the next ask in (calling it again does nothing). */
  enter(): Promise<() => void> {
    return new Promise((resolve) => {
      this.waiting.push(resolve);
      this.next(false);
    });
  }

  /** Asks waiting to be admitted. */
  get size(): number {
    return this.waiting.length;
  }

  /** Lets the next ask in if the slice allows it: the first of a turn always goes. */
  private next(turnStart: boolean): void {
    if (this.waiting.length === 0) return;
    if (this.current !== null || (!turnStart && this.now() >= this.sliceEnds)) return this.schedule();
    const token = Symbol('admission');
    this.current = token;
    this.waiting.shift()!(() => {
      if (this.current !== token) return;
      this.current = null;
      this.next(false);
    });
    // Should this one wait on I/O, the next one goes in the next turn.
    if (this.waiting.length > 0) this.schedule();
  }

  private schedule(): void {
    if (this.scheduled) return;
    this.scheduled = true;
    // An immediate queued while immediates run goes to the next turn: I/O is polled in between.
    this.nextTurn(() => {
      this.scheduled = false;
      // An ask still waiting on I/O goes on, but no longer holds up the others.
      this.current = null;
      this.sliceEnds = this.now() + this.sliceMs;
      this.next(true);
    });
  }
}
