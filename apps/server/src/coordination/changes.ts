import { EventEmitter } from 'node:events';

/** What an admin changed in the shared settings; every other instance reloads the matching cache. */
export const SHARED_CHANGES = ['config', 'credentials', 'servers', 'plugins'] as const;
export type SharedChange = (typeof SHARED_CHANGES)[number];

export interface ChangeChannelEvents {
  /** The handler finished with a change announced by another instance (the cache is fresh). */
  applied: [change: SharedChange];
  /** The handler failed; the periodic refresh catches up. */
  failed: [change: SharedChange, err: unknown];
}

/**
 * Change notifications between the instances of one deployment, so that a change saved through one instance is
 * in force on every other within a second. Best effort: a notification lost (Redis down) is made up for by the
 * periodic re-read of the shared settings.
 */
export abstract class ChangeChannel extends EventEmitter<ChangeChannelEvents> {
  private handler: ((change: SharedChange) => Promise<void>) | null = null;

  /** Tells the other instances (not this one) that `change` happened. Rejects when it could not be sent. */
  abstract publish(change: SharedChange): Promise<void>;

  /** Resolves once changes from other instances are received (at once in a single process). */
  abstract readonly listening: Promise<void>;

  abstract close(): Promise<void>;

  /** Runs `handler` for every change announced by another instance, one at a time in arrival order. */
  subscribe(handler: (change: SharedChange) => Promise<void>): void {
    this.handler = handler;
  }

  private queue: Promise<void> = Promise.resolve();

  protected deliver(change: SharedChange): void {
    const handler = this.handler;
    if (!handler) return;
    this.queue = this.queue.then(() =>
      handler(change).then(
        () => {
          this.emit('applied', change);
        },
        (err: unknown) => {
          this.emit('failed', change, err);
        },
      ),
    );
  }
}

/** One process: nobody else to tell. */
export class MemoryChangeChannel extends ChangeChannel {
  readonly listening = Promise.resolve();

  publish(): Promise<void> {
    return Promise.resolve();
  }

  close(): Promise<void> {
    return Promise.resolve();
  }
}
