import WebSocket from 'ws';
import { rawText } from '../chat/raw-text';
import type { AskRequestInput, AskResponse } from '@cc/contracts';

export interface AskResult {
  frames: AskResponse[];
  code: number;
  reason: string;
}

export interface AskOptions {
  cookie?: string;
  origin?: string;
  /** Called for each frame; return true to close the socket (the client's "stop"). */
  onFrame?: (frame: AskResponse, socket: WebSocket) => boolean | void;
  /** Raw text to send instead of the request. */
  raw?: string;
}

/** A real websocket client: connects to /api/chat, sends one AskRequest, collects frames until the close. */
export function ask(
  baseUrl: string,
  request: AskRequestInput | null,
  options: AskOptions = {},
): Promise<AskResult> {
  return new Promise((resolve, reject) => {
    const headers: Record<string, string> = {};
    if (options.cookie) headers.cookie = options.cookie;
    if (options.origin) headers.origin = options.origin;
    const socket = new WebSocket(`${baseUrl.replace(/^http/, 'ws')}/api/chat`, { headers });
    const frames: AskResponse[] = [];
    let stopped = false;
    socket.on('open', () => socket.send(options.raw ?? JSON.stringify(request)));
    socket.on('message', (data) => {
      const frame = JSON.parse(rawText(data)) as AskResponse;
      frames.push(frame);
      if (!stopped && options.onFrame?.(frame, socket)) {
        stopped = true;
        socket.close(1000, 'stop');
      }
    });
    socket.on('close', (code, reason) => resolve({ frames, code, reason: reason.toString() }));
    socket.on('error', reject);
  });
}

/** Opens a socket and keeps it open until `close()` (for queue tests). */
export function openAsk(baseUrl: string, request: AskRequestInput, cookie: string) {
  const frames: AskResponse[] = [];
  const socket = new WebSocket(`${baseUrl.replace(/^http/, 'ws')}/api/chat`, { headers: { cookie } });
  const closed = new Promise<{ code: number; reason: string }>((resolve) =>
    socket.on('close', (code, reason) => resolve({ code, reason: reason.toString() })),
  );
  socket.on('open', () => socket.send(JSON.stringify(request)));
  socket.on('message', (data) => frames.push(JSON.parse(rawText(data)) as AskResponse));
  return { frames, socket, closed, close: () => socket.close(1000, 'stop') };
}

/** Polls until `check` is true (or fails after `timeoutMs`). */
export async function until(check: () => boolean | Promise<boolean>, timeoutMs = 5000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > end) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 20));
  }
}
