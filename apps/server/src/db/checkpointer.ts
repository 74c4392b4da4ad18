import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';
import type SQLite from 'better-sqlite3';

/** How often the WAL is copied into the database file, ms. */
export const CHECKPOINT_EVERY_MS = 1000;
/** SQLite's own checkpoint threshold (pages), for a connection that checkpoints at its commits again. */
export const AUTOCHECKPOINT_PAGES = 1000;
/**
 * The server's connection still checkpoints at a commit once the WAL holds this many pages (~40 MB). The worker's
 * checkpoints never wait for writers (PASSIVE), so while commits keep coming it never finds the WAL fully copied,
 * and only a fully copied WAL starts again from its beginning: without this backstop the WAL would grow for as long
 * as the load lasts (100 MB in a minute at 500 streams). The commit that crosses it finds nearly every page copied
 * already.
 */
export const BACKSTOP_PAGES = 10_000;
/** Past this size (bytes) a WAL that starts again is cut back. */
export const WAL_SIZE_LIMIT = 64 * 1024 * 1024;

/** What one checkpoint did (SQLite's `wal_checkpoint` row): frames in the WAL and frames copied. */
export interface CheckpointResult {
  busy: number;
  log: number;
  checkpointed: number;
}

/** The worker: its own connection to the same file; a PASSIVE checkpoint per request (never waits for writers). */
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const Database = require(workerData.driver);
const db = new Database(workerData.file, { fileMustExist: true });
db.pragma('busy_timeout = 5000');
parentPort.on('message', (message) => {
  if (message === 'close') {
    db.close();
    parentPort.close();
    return;
  }
  try {
    parentPort.postMessage(db.pragma('wal_checkpoint(PASSIVE)')[0]);
  } catch (e) {
    parentPort.postMessage({ error: String((e && e.message) || e) });
  }
});
`;

export interface Checkpointer {
  /** Runs a checkpoint now (besides the timer's) and resolves with what it did. */
  checkpoint(): Promise<CheckpointResult>;
  /** Stops the timer and the worker (before the connection closes: its close checkpoints what is left). */
  close(): Promise<void>;
}

/**
 * Checkpoints of a SQLite file in WAL mode, on a worker thread: the connection of the server checkpoints at a commit
 * only past BACKSTOP_PAGES instead of SQLite's 1,000. A checkpoint copies the pages written since the last one into
 * the database file and syncs it; done by the commit that crosses SQLite's threshold, that is a stall of 10–40 ms
 * of the event loop every few seconds under load (about 0.6 s of each 1,000 streamed answers). If the worker fails,
 * the connection checkpoints at SQLite's threshold again.
 */
export function startCheckpointer(
  connection: SQLite.Database,
  file: string,
  onFailure: (error: Error) => void,
  { everyMs = CHECKPOINT_EVERY_MS, backstopPages = BACKSTOP_PAGES } = {},
): Checkpointer {
  connection.pragma(`wal_autocheckpoint = ${backstopPages}`);
  connection.pragma(`journal_size_limit = ${WAL_SIZE_LIMIT}`);
  const waiting: ((result: CheckpointResult | Error) => void)[] = [];
  let closing = false;
  let failed = false;
  const fail = (thrown: unknown) => {
    if (failed || closing) return;
    failed = true;
    // What a worker throws reaches this thread as a copy: a SQLite error arrives as a plain object.
    const error =
      thrown instanceof Error
        ? thrown
        : new Error(`the checkpoint worker failed: ${JSON.stringify(thrown)}`, { cause: thrown });
    clearInterval(timer);
    connection.pragma(`wal_autocheckpoint = ${AUTOCHECKPOINT_PAGES}`);
    for (const settle of waiting.splice(0)) settle(error);
    onFailure(error);
  };
  // Started at the first checkpoint, not at boot: a thread with its own V8 and SQLite takes ~0.2 s of CPU to start,
  // which the server's start would wait for on a 2-core machine.
  let worker: Worker | null = null;
  const started = (): Worker => {
    if (worker) return worker;
    const driver = createRequire(import.meta.url).resolve('better-sqlite3');
    worker = new Worker(WORKER_SOURCE, { eval: true, workerData: { driver, file } });
    worker.unref();
    worker.on('message', (result: CheckpointResult | { error: string }) => {
      const settle = waiting.shift();
      settle?.('error' in result ? new Error(result.error) : result);
    });
    worker.on('error', fail);
    worker.on('exit', (code) => fail(new Error(`the checkpoint worker stopped (exit code ${code})`)));
    return worker;
  };
  const request = (): Promise<CheckpointResult> =>
    new Promise((resolve, reject) => {
      if (failed || closing) {
        reject(new Error('the checkpoint worker is not running'));
        return;
      }
      waiting.push((result) => (result instanceof Error ? reject(result) : resolve(result)));
      started().postMessage('checkpoint');
    });
  const timer = setInterval(() => {
    // One at a time: a checkpoint still running (a slow disk) is not asked for again.
    if (waiting.length === 0) request().catch(() => undefined);
  }, everyMs);
  timer.unref();
  return {
    checkpoint: request,
    async close() {
      if (closing) return;
      closing = true;
      clearInterval(timer);
      const running = worker;
      if (failed || !running) return;
      const exited = new Promise<void>((resolve) => running.once('exit', () => resolve()));
      running.postMessage('close');
      await exited;
    },
  };
}
