/** Helpers shared by this package's tests (real HTTP through global fetch). */
import { randomUUID } from 'node:crypto';

/** Splits an event-stream text into the payloads of its `data:` lines, in order. */
export function dataLines(text: string): string[] {
  return text
    .split('\n')
    .filter((line) => line.startsWith('data: '))
    .map((line) => line.slice('data: '.length));
}

/** Reads a whole event-stream response and returns the `data:` payloads. */
export async function readEvents(res: Response): Promise<string[]> {
  return dataLines(await res.text());
}

/** Reads `count` data payloads from a streaming response, leaving the stream open. */
export async function readSomeEvents(
  reader: ReadableStreamDefaultReader<Uint8Array>,
  count: number,
): Promise<string[]> {
  const decoder = new TextDecoder();
  let buffer = '';
  const events: string[] = [];
  while (events.length < count) {
    const { value, done } = await reader.read();
    if (done) break;
    buffer += decoder.decode(value, { stream: true });
    let end: number;
    while ((end = buffer.indexOf('\n\n')) >= 0) {
      events.push(...dataLines(buffer.slice(0, end)));
      buffer = buffer.slice(end + 2);
    }
  }
  return events;
}

export interface WebAskOptions {
  action?: 'next' | 'continue';
  conversationId?: string | null;
  parentId?: string;
  model?: string;
  content?: Record<string, unknown>;
  metadata?: Record<string, unknown>;
  pluginIds?: string[] | null;
  messageId?: string;
  headers?: Record<string, string>;
  signal?: AbortSignal;
}

/** The request body the product sends for a web ask (reference §3.1). */
export function webAskBody(text: string, o: WebAskOptions = {}): Record<string, unknown> {
  const action = o.action ?? 'next';
  return {
    action,
    arkose_token: null,
    conversation_id: o.conversationId ?? null,
    conversation_mode: { kind: 'primary_assistant', gizmo_id: null, gizmo: null },
    force_paragen: false,
    force_rate_limit: false,
    history_and_training_disabled: false,
    messages:
      action === 'continue'
        ? null
        : [
            {
              id: o.messageId ?? randomUUID(),
              author: { role: 'user' },
              content: o.content ?? { content_type: 'text', parts: [text] },
              metadata: o.metadata ?? {},
            },
          ],
    model: o.model ?? 'text-davinci-002-render-sha',
    parent_message_id: o.parentId ?? randomUUID(),
    plugin_ids: o.pluginIds ?? null,
    suggestions: [],
    timezone_offset_min: null,
  };
}

export function postWebAsk(baseUrl: string, text: string, o: WebAskOptions = {}): Promise<Response> {
  return fetch(`${baseUrl}conversation`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...o.headers },
    body: JSON.stringify(webAskBody(text, o)),
    signal: o.signal,
  });
}

/* eslint-disable @typescript-eslint/no-explicit-any, @typescript-eslint/no-unsafe-member-access,
   @typescript-eslint/no-unsafe-assignment, @typescript-eslint/no-unsafe-argument, @typescript-eslint/no-unsafe-return,
   @typescript-eslint/no-unsafe-call -- tests read untyped JSON events */
export interface WebAskResult {
  status: number;
  raw: string[];
  /** Parsed JSON events (the final `[DONE]` and unparsable lines excluded). */
  events: any[];
  /** Message snapshots (events with a `message`). */
  snapshots: any[];
  conversationId: string;
}

export async function webAsk(baseUrl: string, text: string, o: WebAskOptions = {}): Promise<WebAskResult> {
  const res = await postWebAsk(baseUrl, text, o);
  const raw = await readEvents(res);
  const events: any[] = [];
  for (const line of raw) {
    if (line === '[DONE]') continue;
    try {
      events.push(JSON.parse(line));
    } catch {
      // malformed line (fault tests look at `raw`)
    }
  }
  const snapshots = events.filter((e) => e.message);
  return { status: res.status, raw, events, snapshots, conversationId: snapshots[0]?.conversation_id ?? '' };
}

/** Final snapshot of every message id, in order of first appearance. */
export function finalMessages(snapshots: any[]): any[] {
  const byId = new Map<string, any>();
  for (const s of snapshots) byId.set(s.message.id, s.message);
  return [...byId.values()];
}

export function textOf(message: any): string {
  return (message?.content?.parts ?? []).filter((p: unknown) => typeof p === 'string').join('');
}
