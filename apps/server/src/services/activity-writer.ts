import type { FastifyBaseLogger } from 'fastify';
import { userRepository } from '../repositories/user.repository';
import type { Transactional } from '../repositories/executor';

/** Activity marks are written at most this late. */
export const ACTIVITY_FLUSH_MS = 1000;
/** Or as soon as this many users wait for theirs. */
const MAX_WAITING = 500;

interface Mark {
  at: string;
  /** The stored mark is rewritten only when older than this (see `touchActive`). */
  staleBefore: string;
}

/**
 * Writes users' activity marks (`last_active_time`) together: within a second, in one transaction, instead of an
 * UPDATE of its own for each (a burst of 200 first asks was 200 commits in admission, one ask after another). Until
 * a mark is committed, a user row read here gets it (`apply`), and the readers that filter or count by it write
 * the waiting marks first (`flush`). A batch that fails is logged and dropped: the user's next request marks again.
 */
export class ActivityWriter {
  private waiting = new Map<number, Mark>();
  /** Batches taken from `waiting` and not committed yet: their marks still count as pending. */
  private readonly unwritten = new Set<Map<number, Mark>>();
  private timer: NodeJS.Timeout | null = null;
  private writing: Promise<void> = Promise.resolve();

  constructor(
    private readonly db: Transactional,
    private readonly log: Pick<FastifyBaseLogger, 'warn'>,
  ) {}

  /** The user was active at `at`; stored marks older than `staleBefore` are replaced. */
  mark(userId: number, at: string, staleBefore: string): void {
    this.waiting.set(userId, { at, staleBefore });
    if (this.waiting.size >= MAX_WAITING) void this.flush();
    else if (!this.timer) {
      this.timer = setTimeout(() => void this.flush(), ACTIVITY_FLUSH_MS);
      this.timer.unref();
    }
  }

  /** The user's mark not committed yet, if any. */
  pending(userId: number): string | undefined {
    const waiting = this.waiting.get(userId);
    if (waiting) return waiting.at;
    for (const batch of this.unwritten) {
      const mark = batch.get(userId);
      if (mark) return mark.at;
    }
    return undefined;
  }

  /** Gives a user row read from the database this instance's mark for it, when that is newer. */
  apply(row: { id: number; last_active_time: string | null }): void {
    const pending = this.pending(row.id);
    if (pending && (!row.last_active_time || row.last_active_time < pending)) row.last_active_time = pending;
  }

  /** Writes the waiting marks; resolves when they (and any batch before them) are committed or dropped. */
  flush(): Promise<void> {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    if (this.waiting.size === 0) return this.writing;
    const marks = this.waiting;
    this.waiting = new Map();
    this.unwritten.add(marks);
    this.writing = this.writing.then(async () => {
      try {
        await this.db.transaction().execute(async (trx) => {
          const users = userRepository(trx);
          for (const [id, mark] of marks) await users.touchActive(id, mark.at, mark.staleBefore);
        });
      } catch (err) {
        this.log.warn({ err, users: marks.size }, 'activity marks not written');
      } finally {
        this.unwritten.delete(marks);
      }
    });
    return this.writing;
  }

  close(): Promise<void> {
    return this.flush();
  }
}
