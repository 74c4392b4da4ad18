/** Public types of the upstream emulator. */

export interface EmulatorOptions {
  /** Interface to listen on; default 127.0.0.1. */
  host?: string;
  /** Port to listen on; 0 (default) picks a random free port. */
  port?: number;
  /** When set, every `/backend-api/` request must carry exactly `Authorization: Bearer <token>`, else 401. */
  webAccessToken?: string;
  /** When set, every `/v1/` request must carry exactly `Authorization: Bearer <key>`, else 401. */
  apiKey?: string;
  /** Initial streaming knobs; `reset()` returns to these. */
  knobs?: Partial<Knobs>;
  /**
   * A JSON file that keeps the web conversations over restarts: read at start when it exists, rewritten
   * (temporary file + rename) shortly after every change and at `close()`. An unreadable file is moved to
   * `<file>.corrupt` and the emulator starts empty. Without it everything is in memory.
   */
  stateFile?: string;
  /** Where state file problems are reported (default `console.warn`). */
  warn?: (message: string) => void;
  /**
   * Origin of the upload and download URLs the file routes hand out (default: the emulator's own URL, whose
   * `/blob/` routes serve them). Another origin emulates a blob host elsewhere, or an upstream pointing at one.
   */
  blobOrigin?: string;
}

export interface Knobs {
  /** Delay before the first assistant chunk of an answer, in ms. Default 0. */
  firstTokenLatencyMs: number;
  /** Pace of streamed chunks; a chunk counts as max(1, chunkSize / 4) tokens. 0 = as fast as possible (default). */
  tokensPerSecond: number;
  /** Characters per streamed chunk. Default 8. */
  chunkSize: number;
}

export const DEFAULT_KNOBS: Readonly<Knobs> = Object.freeze({
  firstTokenLatencyMs: 0,
  tokensPerSecond: 0,
  chunkSize: 8,
});

/**
 * A fault applied to the ask endpoints (`POST /backend-api/conversation`, `POST /v1/chat/completions`).
 * A "chunk" is one `data:` event of the response stream (the user echo, every snapshot or delta, title events).
 */
export interface Fault {
  /** Respond with this HTTP status and a JSON error body (or `body`) at once. */
  status?: number;
  /** Raw response body to use with `status`. */
  body?: string;
  /** Destroy the socket after this many chunks. */
  disconnectAfterChunks?: number;
  /** Stop writing after this many chunks but keep the socket open until the client leaves or the emulator closes. */
  stallAfterChunks?: number;
  /** Emit one garbage `data: {not json` line after this many chunks, then continue normally. */
  malformedLineAfterChunks?: number;
  /** Emit an error event with this text inside the stream (after the first assistant chunk), then end. */
  errorInStream?: string;
  /** Apply to the next ask only. */
  once?: boolean;
}

export interface RecordedRequest {
  /** Sequence number, from 1. */
  seq: number;
  method: string;
  /** Path without the query string, e.g. `/backend-api/conversation`. */
  path: string;
  query: Record<string, string>;
  /** Lower-cased header names; repeated headers joined with ", ". */
  headers: Record<string, string>;
  /** Parsed JSON body, or undefined when there was none or it was not JSON. */
  body: unknown;
  /** Size of the raw request body in bytes. */
  bodyBytes: number;
  /** Whether an Authorization header was received (for the blob host this must stay false). */
  hadAuthorization: boolean;
  /** Epoch ms when the request was received. */
  receivedAt: number;
  /** HTTP status of the response, once sent. */
  status?: number;
  /** Ask requests only: true when the client disconnected before the response ended. */
  aborted?: boolean;
  /** Ask requests only: epoch ms when the client disconnected. */
  abortedAt?: number;
  /** Ask requests only: epoch ms when the response ended (normally or by a fault). */
  endedAt?: number;
}

export interface Emulator {
  /** `http://127.0.0.1:PORT` */
  url: string;
  /** `${url}/backend-api/` (openai_web base URL). */
  webBaseUrl: string;
  /** `${url}/v1/` (openai_api base URL). */
  apiBaseUrl: string;
  /** Ends every open stream and socket, then stops listening. */
  close(): Promise<void>;
  setKnobs(k: Partial<Knobs>): void;
  /** Applies to following asks until cleared; a fault with `once: true` applies to the next ask only. */
  setFault(f: Fault | null): void;
  /** Origin of the upload and download URLs handed out from now on; null = the start option (or `url`). */
  setBlobOrigin(origin: string | null): void;
  /** Every request received (control requests excluded), oldest first. The array is live. */
  requests: RecordedRequest[];
  /** Resolves with the first recorded request (existing or future, re-checked on updates) matching `pred`. */
  waitForRequest(pred: (r: RecordedRequest) => boolean, timeoutMs?: number): Promise<RecordedRequest>;
  /**
   * Clears conversations, files, plugin installs, knobs and blob origin (back to the start options), fault and records.
   */
  reset(): void;
}
