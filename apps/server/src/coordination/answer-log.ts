import { EventEmitter } from 'node:events';

/** How an answer ended: the websocket close code and reason its clients get. */
export interface AnswerEnd {
  code: number;
  reason: string;
}

/** One entry of an answer's log: a frame (serialized JSON, as sent) or the end. */
export type AnswerEntry = { frame: string } | { end: AnswerEnd };

/**
 * Why a stop was asked for: the user (any tab), the account was deactivated, or the answer's conversation was
 * deleted (invalidated) or destroyed (vanished).
 */
export type StopReason = 'user' | 'deactivated' | 'conversationInvalidated' | 'conversationVanished';

export interface FollowedAnswer {
  askId: string;
  entries: AsyncIterable<AnswerEntry>;
}

/**
 * The frames of each user's answer in flight, kept while it streams and a short while after, so that a client
 * that lost its socket resumes from the last frame it saw, on any instance. A user has one answer at a time (the
 * chat-status lock), so answers are found by user, and checked by ask id.
 */
export interface AnswerLog {
  /** Starts the log of the user's new answer (an older, finished one is dropped). */
  begin(userId: number, askId: string): Promise<void>;
  /** Appends one frame, in order. Never throws: a failure costs only the ability to resume. */
  append(userId: number, askId: string, frame: string): void;
  /** Ends the answer: followers get this close after the last frame; the log is kept a short while. */
  end(userId: number, askId: string, end: AnswerEnd): Promise<void>;
  /**
   * The frames after the first `after`, then live ones until the end. `askId` null: the user's answer still in
   * flight (a finished one is not replayed to a page that never saw it). Null when there is no such answer (never
   * started, expired, or, without an id, finished).
   */
  follow(
    userId: number,
    askId: string | null,
    after: number,
    signal: AbortSignal,
  ): Promise<FollowedAnswer | null>;
  /** Asks whichever instance runs the answer to stop it (`askId` null: the user's current answer). */
  requestStop(userId: number, askId: string | null, reason: StopReason): Promise<void>;
  /** Calls `listener` when a stop is asked for this answer; returns the unsubscribe. */
  onStop(userId: number, askId: string, listener: (reason: StopReason) => void): () => void;
  close(): Promise<void>;
}

/** How long a finished answer stays resumable. */
export const ANSWER_RETAIN_MS = 60_000;

interface StopMessage {
  userId: number;
  askId: string | null;
  reason: StopReason;
}

/** Stop requests delivered to this process's listeners (fed locally, or from Redis pub/sub). */
export class StopListeners {
  private readonly events = new EventEmitter();

  constructor() {
    this.events.setMaxListeners(0);
  }

  emit(message: StopMessage): void {
    this.events.emit(String(message.userId), message);
  }

  on(userId: number, askId: string, listener: (reason: StopReason) => void): () => void {
    const handler = (m: StopMessage) => {
      if (m.askId === null || m.askId === askId) listener(m.reason);
    };
    this.events.on(String(userId), handler);
    return () => this.events.off(String(userId), handler);
  }
}

interface MemoryAnswer {
  askId: string;
  frames: string[];
  end: AnswerEnd | null;
  wake: Set<() => void>;
  expiry: NodeJS.Timeout | null;
}

/** Answers in this process (the default, one instance). */
export class MemoryAnswerLog implements AnswerLog {
  private readonly answers = new Map<number, MemoryAnswer>();
  private readonly stops = new StopListeners();

  begin(userId: number, askId: string): Promise<void> {
    const old = this.answers.get(userId);
    if (old?.expiry) clearTimeout(old.expiry);
    this.answers.set(userId, { askId, frames: [], end: null, wake: new Set(), expiry: null });
    return Promise.resolve();
  }

  append(userId: number, askId: string, frame: string): void {
    const a = this.answers.get(userId);
    if (a?.askId !== askId || a.end) return;
    a.frames.push(frame);
    this.wakeAll(a);
  }

  end(userId: number, askId: string, end: AnswerEnd): Promise<void> {
    const a = this.answers.get(userId);
    if (a?.askId !== askId || a.end) return Promise.resolve();
    a.end = end;
    this.wakeAll(a);
    a.expiry = setTimeout(() => {
      if (this.answers.get(userId) === a) this.answers.delete(userId);
    }, ANSWER_RETAIN_MS);
    a.expiry.unref();
    return Promise.resolve();
  }

  follow(
    userId: number,
    askId: string | null,
    after: number,
    signal: AbortSignal,
  ): Promise<FollowedAnswer | null> {
    const a = this.answers.get(userId);
    if (!a || (askId === null ? a.end !== null : a.askId !== askId)) return Promise.resolve(null);
    return Promise.resolve({ askId: a.askId, entries: this.entries(a, after, signal) });
  }

  private async *entries(a: MemoryAnswer, after: number, signal: AbortSignal): AsyncGenerator<AnswerEntry> {
    let next = Math.max(0, after);
    while (!signal.aborted) {
      while (next < a.frames.length) yield { frame: a.frames[next++]! };
      if (a.end) {
        yield { end: a.end };
        return;
      }
      await new Promise<void>((resolve) => {
        const done = () => {
          a.wake.delete(done);
          signal.removeEventListener('abort', done);
          resolve();
        };
        a.wake.add(done);
        signal.addEventListener('abort', done, { once: true });
      });
    }
  }

  private wakeAll(a: MemoryAnswer): void {
    for (const w of [...a.wake]) w();
  }

  requestStop(userId: number, askId: string | null, reason: StopReason): Promise<void> {
    this.stops.emit({ userId, askId, reason });
    return Promise.resolve();
  }

  onStop(userId: number, askId: string, listener: (reason: StopReason) => void): () => void {
    return this.stops.on(userId, askId, listener);
  }

  close(): Promise<void> {
    for (const a of this.answers.values()) if (a.expiry) clearTimeout(a.expiry);
    this.answers.clear();
    return Promise.resolve();
  }
}
