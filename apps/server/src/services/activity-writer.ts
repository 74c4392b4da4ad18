import type { FastifyBaseLogger } from 'fastify';
import { sessionRepository } from '../repositories/session.repository';
import { userRepository } from '../repositories/user.repository';
import type { Transactional } from '../repositories/executor';

/** Activity marks are written at most this late. */
export const ACTIVITY_FLUSH_MS = 1000;
/** Or as soon as this many marks wait. */
const MAX_WAITING = 500;

interface Mark {
  at: string;
  /** The stored mark is rewritten only when older than this (see `touchActive`, `touchSeen`). */
  staleBefore: string;
}

/** The marks of one batch: users' by id, sessions' by id. */
interface Marks {
  users: Map<number, Mark>;
  sessions: Map<string, Mark>;
}

const noMarks = (): Marks => ({ users: new Map(), sessions: new Map() });

/**
 * Writes activity marks together — users' `last_active_time` and sessions' `last_seen_at` — within a second, in one
 * transaction, instead of an UPDATE and commit of its own for each (a burst of 200 first asks was 200 commits in
 * admission, one ask after another; a session used again after a minute was a commit inside its first API request).
 * Until a mark is committed, a row read here gets it (`apply`, `applySession`), and the readers that filter or count
 * by users' marks write the waiting ones first (`flush`). A batch that fails is logged and dropped: the next request
 * marks again.
 */
export class ActivityWriter {
  private waiting = noMarks();
  /** Batches taken from `waiting` and not committed yet: their marks still count as pending. */
  private readonly unwritten = new Set<Marks>();
  private timer: NodeJS.Timeout | null = null;
  private writing: Promise<void> = Promise.resolve();

  constructor(
    private readonly db: Transactional,
    private readonly log: Pick<FastifyBaseLogger, 'warn'>,
  ) {}

  /** The user was active at `at`; stored marks older than `staleBefore` are replaced. */
  mark(userId: number, at: string, staleBefore: string): void {
    this.waiting.users.set(userId, { at, staleBefore });
    this.schedule();
  }

  /** The session was used at `at`; a stored `last_seen_at` older than `staleBefore` is replaced. */
  markSession(sessionId: string, at: string, staleBefore: string): void {
    this.waiting.sessions.set(sessionId, { at, staleBefore });
    this.schedule();
  }

  /** The user's mark not committed yet, if any. */
  pending(userId: number): string | undefined {
    return this.pendingIn((marks) => marks.users.get(userId));
  }

  /** Gives a user row read from the database this instance's mark for it, when that is newer. */
  apply(row: { id: number; last_active_time: string | null }): void {
    const pending = this.pending(row.id);
    if (pending && (!row.last_active_time || row.last_active_time < pending)) row.last_active_time = pending;
  }

  /** Gives a session row read from the database this instance's mark for it, when that is newer. */
  applySession(row: { id: string; last_seen_at: string }): void {
    const pending = this.pendingIn((marks) => marks.sessions.get(row.id));
    if (pending && row.last_seen_at < pending) row.last_seen_at = pending;
  }

  private pendingIn(find: (marks: Marks) => Mark | undefined): string | undefined {
    const waiting = find(this.waiting);
    if (waiting) return waiting.at;
    for (const batch of this.unwritten) {
      const mark = find(batch);
      if (mark) return mark.at;
    }
    return undefined;
  }

  private schedule(): void {
    if (this.waiting.users.size + this.waiting.sessions.size >= MAX_WAITING) void this.flush();
    else if (!this.timer) {
      this.timer = setTimeout(() => void this.flush(), ACTIVITY_FLUSH_MS);
      this.timer.unref();
    }
  }

  /** Writes the waiting marks; resolves when they (and any batch before them) are committed or dropped. */
  flush(): Promise<void> {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    const marks = this.waiting;
    if (marks.users.size + marks.sessions.size === 0) return this.writing;
    this.waiting = noMarks();
    this.unwritten.add(marks);
    this.writing = this.writing.then(async () => {
      try {
        await this.db.transaction().execute(async (trx) => {
          const users = userRepository(trx);
          for (const [id, mark] of marks.users) await users.touchActive(id, mark.at, mark.staleBefore);
          const sessions = sessionRepository(trx);
          for (const [id, mark] of marks.sessions) await sessions.touchSeen(id, mark.at, mark.staleBefore);
        });
      } catch (err) {
        this.log.warn(
          { err, users: marks.users.size, sessions: marks.sessions.size },
          'activity marks not written',
        );
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
