import type { AskRequestInput, AskResponse } from '@cc/contracts';
import { apiPaths } from '../config/paths';

export interface AskHandlers {
  onFrame: (frame: AskResponse) => void;
  /** Called once: the server's close code and reason (1006 when the connection dropped). */
  onClose: (code: number, reason: string, byClient: boolean) => void;
}

export interface AskConnection {
  /** Stops the answer: the socket is closed, the server keeps what arrived. */
  close: () => void;
}

type SocketFactory = (url: string) => WebSocket;

const KNOWN_TYPES = new Set(['queueing', 'waiting', 'message', 'error']);

/** Parses one frame; anything that is not a known AskResponse shape is dropped. */
export function parseFrame(data: unknown): AskResponse | null {
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

/** One connection = one question (SPEC §7): send the AskRequest on open, stream frames until the server closes. */
export function openAsk(
  request: AskRequestInput,
  handlers: AskHandlers,
  createSocket: SocketFactory = (url) => new WebSocket(url),
): AskConnection {
  const socket = createSocket(apiPaths.chatSocket());
  let closedByClient = false;
  let done = false;
  const finish = (code: number, reason: string) => {
    if (done) return;
    done = true;
    handlers.onClose(code, reason, closedByClient);
  };
  socket.onopen = () => socket.send(JSON.stringify(request));
  socket.onmessage = (event: MessageEvent) => {
    const frame = parseFrame(event.data);
    if (frame) handlers.onFrame(frame);
  };
  socket.onclose = (event: CloseEvent) => finish(event.code, event.reason);
  return {
    close: () => {
      if (done) return;
      closedByClient = true;
      if (socket.readyState === WebSocket.CONNECTING || socket.readyState === WebSocket.OPEN)
        socket.close(1000);
      // Do not wait for the close handshake: the answer stops now for the user.
      finish(1000, '');
    },
  };
}
