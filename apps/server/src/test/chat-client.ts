import WebSocket from 'ws';
import { rawText } from '../chat/raw-text';
import { messageText } from '@cc/contracts';
import type { AskRequestInput, AskResponse } from '@cc/contracts';

export interface AskResult {
  frames: AskResponse[];
  code: number;
  reason: string;
  /** How many of the frames came as binary messages (appended text in delta mode). */
  binary: number;
}

export interface AskOptions {
  cookie?: string;
  origin?: string;
  /** Called for each frame; return true to close the socket (the client's "stop"). */
  onFrame?: (frame: AskResponse, socket: WebSocket) => boolean | void;
  /** Raw text to send instead of the request. */
  raw?: string;
}

/** A new openai_api conversation's first question (gpt_3_5), with any other fields of the request. */
export function apiAsk(text: string, more: Partial<AskRequestInput> = {}): AskRequestInput {
  return { source: 'openai_api', model: 'gpt_3_5', new_conversation: true, text_content: text, ...more };
}

/** A question in an openai_api conversation (gpt_3_5) under `parent`, with any other fields of the request. */
export function apiFollowUp(
  conversationId: string,
  parent: string | null,
  text: string,
  more: Partial<AskRequestInput> = {},
): AskRequestInput {
  return apiAsk(text, { new_conversation: false, conversation_id: conversationId, parent, ...more });
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
    let binary = 0;
    socket.on('message', (data, isBinary) => {
      if (isBinary) binary++;
      const frame = frameOf(rawText(data), isBinary);
      frames.push(frame);
      if (!stopped && options.onFrame?.(frame, socket)) {
        stopped = true;
        socket.close(1000, 'stop');
      }
    });
    socket.on('close', (code, reason) => resolve({ frames, code, reason: reason.toString(), binary }));
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
  socket.on('message', (data, isBinary) => frames.push(frameOf(rawText(data), isBinary)));
  return { frames, socket, closed, close: () => socket.close(1000, 'stop') };
}

/**
 * `promise`, or a failure that names `what` after `ms`: a step that hangs fails the test saying which step it was,
 * instead of the test's own timeout saying nothing.
 */
export async function within<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what}: not within ${ms} ms`)), ms);
  });
  try {
    return await Promise.race([promise, late]);
  } finally {
    clearTimeout(timer);
  }
}

/** Polls until `check` is true (or fails after `timeoutMs`). */
export async function until(check: () => boolean | Promise<boolean>, timeoutMs = 5000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > end) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** A message of the chat socket as a frame: a binary one is text appended to the named message (delta mode). */
export function frameOf(text: string, isBinary: boolean): AskResponse {
  return isBinary ? { type: 'append', text } : (JSON.parse(text) as AskResponse);
}

/** A socket the test drives: first message, frames, a drop (terminate) or a close with a code. */
export interface ChatConnection {
  frames: AskResponse[];
  closed: Promise<{ code: number; reason: string }>;
  send(value: unknown): void;
  /** Drops the connection without a close frame (a network failure: the server sees 1006). */
  drop(): void;
  close(code: number): void;
}

export function connect(baseUrl: string, first: unknown, cookie: string): ChatConnection {
  const frames: AskResponse[] = [];
  const socket = new WebSocket(`${baseUrl.replace(/^http/, 'ws')}/api/chat`, { headers: { cookie } });
  const closed = new Promise<{ code: number; reason: string }>((resolve) =>
    socket.on('close', (code, reason) => resolve({ code, reason: reason.toString() })),
  );
  socket.on('open', () => socket.send(JSON.stringify(first)));
  socket.on('message', (data, isBinary) => frames.push(frameOf(rawText(data), isBinary)));
  socket.on('error', () => undefined);
  return {
    frames,
    closed,
    send: (value) => socket.send(JSON.stringify(value)),
    drop: () => socket.terminate(),
    close: (code) => socket.close(code),
  };
}

/** The text of every message after applying the frames in order (whole messages, deltas and appends). */
export function replay(frames: AskResponse[]): Map<string, string> {
  const texts = new Map<string, string>();
  let named: string | null = null;
  for (const f of frames) {
    if (f.type === 'append') {
      if (named !== null) texts.set(named, (texts.get(named) ?? '') + f.text);
      continue;
    }
    if (f.type !== 'message') continue;
    if (f.message) {
      texts.set(f.message.id, messageText(f.message));
      named = f.message.id;
    }
    if (f.delta) {
      texts.set(f.delta.message_id, (texts.get(f.delta.message_id) ?? '') + f.delta.append);
      named = f.delta.message_id;
    }
  }
  return texts;
}

/** The first frame with the assistant's message: the answer's (its conversation and message id). */
export function answerFrame(frames: AskResponse[]) {
  return frames.find(
    (f): f is Extract<AskResponse, { type: 'message' }> =>
      f.type === 'message' && f.message?.role === 'assistant',
  );
}

/** The answer's text so far, replayed from the frames (undefined until its message came). */
export function answerText(frames: AskResponse[]): string | undefined {
  const answer = answerFrame(frames);
  return answer?.message ? replay(frames).get(answer.message.id) : undefined;
}
