import type { ServerResponse } from 'node:http';
import type { Fault, Knobs, RecordedRequest } from './types';
import { untilAborted } from './util';

/** What an ask needs from the emulator to track its lifetime. */
export interface AskHost {
  /** True while the emulator is closing: disconnects then are not the client's doing. */
  isClosing(): boolean;
  /** Re-evaluate waiters after a record changed. */
  recordUpdated(record: RecordedRequest): void;
  /** Track an in-flight ask so close() can end it. */
  track(controller: AbortController): void;
  untrack(controller: AbortController): void;
}

/**
 * Lifetime of one ask response: records `aborted` when the client leaves before the end, and aborts
 * `signal` when the client leaves or the emulator closes.
 */
export class AskLifecycle {
  private readonly controller = new AbortController();
  private ended = false;

  constructor(
    private readonly res: ServerResponse,
    private readonly record: RecordedRequest,
    private readonly host: AskHost,
  ) {
    record.aborted = false;
    host.track(this.controller);
    res.on('close', () => {
      if (!this.ended && !host.isClosing()) {
        record.aborted = true;
        record.abortedAt = Date.now();
      }
      this.ended = true;
      this.controller.abort();
      host.untrack(this.controller);
      host.recordUpdated(record);
    });
  }

  get signal(): AbortSignal {
    return this.controller.signal;
  }

  get isEnded(): boolean {
    return this.ended;
  }

  /** The response is over from the emulator's side (complete, or cut by a fault). */
  end(): void {
    if (this.ended) return;
    this.ended = true;
    this.record.endedAt = Date.now();
    this.host.recordUpdated(this.record);
  }

  /** Fault: drop the connection without a proper end. */
  destroy(): void {
    this.end();
    this.res.socket?.destroy();
    this.res.destroy();
  }
}

export const MALFORMED_LINE = 'data: {not json\n\n';

/**
 * A `text/event-stream` response with pacing (knobs) and faults. Every `send` is one `data:` event ("chunk").
 * `send` resolves false once the stream must stop (client gone, emulator closing, or a fault cut it).
 */
export class EventStream {
  /** `data:` events written so far (the malformed line excluded). */
  events = 0;
  private nextAt: number | null = null;
  private malformedSent = false;
  private stopped = false;
  /**
   * Resolves once the last write was handed to the socket (so a disconnect fault does not drop it); followed only
   * when such a fault is set.
   */
  private flushed: Promise<void> = Promise.resolve();
  /** Ends the pending pause early (the stream stopped); one abort listener serves the stream's every pause. */
  private wake: (() => void) | null = null;

  constructor(
    private readonly res: ServerResponse,
    private readonly life: AskLifecycle,
    private readonly knobs: Knobs,
    private readonly fault: Fault | null,
  ) {
    life.signal.addEventListener('abort', () => this.wake?.(), { once: true });
  }

  get signal(): AbortSignal {
    return this.life.signal;
  }

  open(): void {
    this.res.writeHead(200, {
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-cache',
      connection: 'keep-alive',
      'x-accel-buffering': 'no',
    });
    this.res.flushHeaders();
  }

  /** Waits for the first-token latency; pacing starts after it. */
  async firstToken(): Promise<boolean> {
    if (!(await this.gate())) return false;
    const ok = await this.pause(this.knobs.firstTokenLatencyMs);
    this.nextAt = null;
    return ok && !this.stopped;
  }

  /**
   * Writes one `data:` event. `tokens` > 0 makes it a paced chunk (tokensPerSecond knob); 0 sends it at once.
   */
  async send(payload: unknown, tokens = 0): Promise<boolean> {
    // Without a fault the gate only asks whether the stream goes on (no extra turn per event).
    if (this.fault === null ? this.stopped || this.signal.aborted : !(await this.gate())) return false;
    const tps = this.knobs.tokensPerSecond;
    if (tokens > 0 && tps > 0) {
      if (this.nextAt !== null) {
        const wait = this.nextAt - Date.now();
        if (wait > 0 && !(await this.pause(wait))) return false;
      }
      this.nextAt = Math.max(this.nextAt ?? 0, Date.now()) + (tokens / tps) * 1000;
    } else if (!(await this.pause(0))) {
      // Yield to I/O between events so a client's disconnect is noticed even at full speed.
      return false;
    }
    const data = typeof payload === 'string' ? payload : JSON.stringify(payload);
    if (!(await this.write(`data: ${data}\n\n`))) return false;
    this.events++;
    return this.fault === null || this.afterWrite();
  }

  /**
   * Resolves true after `ms` (0: once pending I/O is handled), false as soon as the stream stops (client gone,
   * emulator closing). Like `sleep`, without an abort listener added and removed for every event.
   */
  private pause(ms: number): Promise<boolean> {
    const signal = this.signal;
    if (signal.aborted) return Promise.resolve(false);
    return new Promise((resolve) => {
      const done = (): void => {
        this.wake = null;
        resolve(!signal.aborted);
      };
      const cancel =
        ms > 0
          ? clearTimeout.bind(null, setTimeout(done, ms))
          : clearImmediate.bind(null, setImmediate(done));
      this.wake = () => {
        cancel();
        done();
      };
    });
  }

  /** Ends the stream with `data: [DONE]` (subject to faults, like any chunk). */
  async done(): Promise<void> {
    if (!(await this.gate())) return;
    if (!(await this.write('data: [DONE]\n\n'))) return;
    this.close();
  }

  /** Ends the stream without `[DONE]`. */
  close(): void {
    if (this.stopped) return;
    this.stopped = true;
    this.life.end();
    this.res.end();
  }

  /** Chunk size in characters and the token weight of one chunk. */
  get chunkSize(): number {
    return this.knobs.chunkSize;
  }

  get tokensPerChunk(): number {
    return Math.max(1, this.knobs.chunkSize / 4);
  }

  private async write(line: string): Promise<boolean> {
    if (this.stopped || this.signal.aborted || this.res.destroyed) return false;
    let writable = true;
    if (this.fault?.disconnectAfterChunks === undefined) writable = this.res.write(line);
    else
      this.flushed = new Promise<void>((resolve) => {
        writable = this.res.write(line, () => resolve());
      });
    if (writable) return true;
    await new Promise<void>((resolve) => {
      const finish = (): void => {
        this.res.off('drain', finish);
        this.signal.removeEventListener('abort', finish);
        resolve();
      };
      this.res.on('drain', finish);
      this.signal.addEventListener('abort', finish, { once: true });
    });
    return !this.signal.aborted;
  }

  private async afterWrite(): Promise<boolean> {
    const f = this.fault;
    if (
      f?.malformedLineAfterChunks !== undefined &&
      !this.malformedSent &&
      this.events >= f.malformedLineAfterChunks
    ) {
      this.malformedSent = true;
      if (!(await this.write(MALFORMED_LINE))) return false;
    }
    return true;
  }

  /** Applies disconnect/stall faults before a write; false when the stream must stop. */
  private async gate(): Promise<boolean> {
    if (this.stopped || this.signal.aborted) return false;
    const f = this.fault;
    if (f === null) return true;
    if (f.malformedLineAfterChunks === 0 && !this.malformedSent) {
      this.malformedSent = true;
      if (!(await this.write(MALFORMED_LINE))) return false;
    }
    if (f.disconnectAfterChunks !== undefined && this.events >= f.disconnectAfterChunks) {
      this.stopped = true;
      await Promise.race([this.flushed, untilAborted(this.signal)]);
      this.life.destroy();
      return false;
    }
    if (f.stallAfterChunks !== undefined && this.events >= f.stallAfterChunks) {
      this.stopped = true;
      await untilAborted(this.signal);
      return false;
    }
    return true;
  }
}
