import { CHAT_CLOSE, CLIENT_CLOSE } from '@cc/contracts';
import type { AskRequestInput, AskResponse } from '@cc/contracts';
import { apiPaths } from '../config/paths';

export interface AskHandlers {
  onFrame: (frame: AskResponse) => void;
  /** Called once: the server's close code and reason (1006 when the connection dropped for good). */
  onClose: (code: number, reason: string, byClient: boolean) => void;
}

export interface AskConnection {
  /** Stops the answer (from any tab): the server keeps what arrived. */
  close: () => void;
  /** Leaves without stopping: the answer goes on at the server and can be resumed later. */
  detach: () => void;
}

type SocketFactory = (url: string) => WebSocket;

/** Waits before each reconnect after a dropped connection; after the last one the answer is given up. */
export const RECONNECT_DELAYS_MS = [250, 1000, 2000, 4000, 8000];
/** A connection that closes without a close frame: it dropped (the server never closes that way). */
const DROPPED = 1006;

const KNOWN_TYPES = new Set(['queueing', 'waiting', 'message', 'append', 'error']);

const utf8 = new TextDecoder();

/**
 * Parses one frame; anything that is not a known AskResponse shape is dropped. A binary message is text appended to
 * the message the last frame named (delta mode: the server sends each `append` as its text alone).
 */
export function parseFrame(data: unknown): AskResponse | null {
  // (Tested by its tag, not `instanceof`: a buffer from another realm — a test environment's — is one too.)
  if (Object.prototype.toString.call(data) === '[object ArrayBuffer]') {
    return { type: 'append', text: utf8.decode(data as ArrayBuffer) };
  }
  if (typeof data !== 'string') return null;
  try {
    const value = JSON.parse(data) as { type?: unknown };
    return typeof value === 'object' && value !== null && KNOWN_TYPES.has(value.type as string)
      ? (value as AskResponse)
      : null;
  } catch {
    return null;
  }
}

interface Options {
  createSocket?: SocketFactory;
  /** Timer for reconnect delays (tests pass a fake one). */
  schedule?: (fn: () => void, ms: number) => void;
}

/**
 * Follows one answer over as many sockets as it takes: the first carries `first` (a question, or a resume of the
 * user's current answer), and when a connection drops the next resumes after the frames already received, so
 * nothing is lost and nothing arrives twice. Without an ask id (a resumed current answer) a drop is final: the
 * caller reloads the conversation instead.
 */
function follow(
  first: unknown,
  askId: string | null,
  handlers: AskHandlers,
  { createSocket = (url) => new WebSocket(url), schedule = (fn, ms) => void setTimeout(fn, ms) }: Options,
): AskConnection {
  let received = 0;
  /** Only the queue's frames came so far: the answer has not started. */
  let queued = true;
  let attempt = 0;
  let done = false;
  let socket: WebSocket | null = null;
  const finish = (code: number, reason: string, byClient: boolean) => {
    if (done) return;
    done = true;
    handlers.onClose(code, reason, byClient);
  };
  const open = (message: unknown) => {
    const s = createSocket(apiPaths.chatSocket());
    socket = s;
    // Binary messages as ArrayBuffers (read at once, in order), not Blobs.
    s.binaryType = 'arraybuffer';
    s.onopen = () => s.send(JSON.stringify(message));
    s.onmessage = (event: MessageEvent) => {
      const frame = parseFrame(event.data);
      if (!frame) return;
      received += 1;
      if (frame.type !== 'queueing') queued = false;
      attempt = 0;
      handlers.onFrame(frame);
    };
    s.onclose = (event: CloseEvent) => {
      if (done || socket !== s) return;
      if (event.code === DROPPED && askId && attempt < RECONNECT_DELAYS_MS.length) {
        const resume = { type: 'resume', ask_id: askId, after: received };
        schedule(() => !done && open(resume), RECONNECT_DELAYS_MS[attempt++]!);
        return;
      }
      if (event.code === CHAT_CLOSE.draining.code && attempt < RECONNECT_DELAYS_MS.length) {
        // That instance is shutting down: another one takes the same question (nothing started yet: refused at
        // once, or handed back from its queue) or follows the answer from the frames already received.
        const askAgain = received === 0 || (message === first && queued);
        if (askAgain) received = 0;
        const again = askAgain ? first : { type: 'resume', ask_id: askId, after: received };
        schedule(() => !done && open(again), attempt === 0 ? 0 : RECONNECT_DELAYS_MS[attempt - 1]!);
        attempt += 1;
        return;
      }
      finish(event.code, event.reason, false);
    };
  };
  open(first);
  const leave = (code: number) => {
    const s = socket;
    socket = null;
    if (s && (s.readyState === WebSocket.CONNECTING || s.readyState === WebSocket.OPEN)) s.close(code);
  };
  return {
    close: () => {
      if (done) return;
      const s = socket;
      if (s?.readyState === WebSocket.OPEN) leave(CLIENT_CLOSE.stop);
      else {
        // Between sockets (or still connecting): ask the server to stop it on a socket of its own.
        leave(CLIENT_CLOSE.detach);
        const stopper = createSocket(apiPaths.chatSocket());
        stopper.onopen = () => stopper.send(JSON.stringify({ type: 'stop', ask_id: askId }));
      }
      // Do not wait for the close handshake: the answer stops now for the user.
      finish(CHAT_CLOSE.stopped.code, '', true);
    },
    detach: () => {
      if (done) return;
      done = true;
      leave(CLIENT_CLOSE.detach);
    },
  };
}

/** One question (SPEC §7): sends the AskRequest on open and streams frames until the server closes. */
export function openAsk(
  request: AskRequestInput,
  handlers: AskHandlers,
  options: Options = {},
): AskConnection {
  const askId = request.ask_id ?? crypto.randomUUID();
  return follow({ ...request, ask_id: askId }, askId, handlers, options);
}

/**
 * Resumes the user's answer in flight (after a page reload, or coming back to the chat): its frames from the start,
 * then live. Closes with `CHAT_CLOSE.answerNotFound` when there is none.
 */
export function resumeCurrentAsk(handlers: AskHandlers, options: Options = {}): AskConnection {
  return follow({ type: 'resume', ask_id: null, after: 0 }, null, handlers, options);
}
