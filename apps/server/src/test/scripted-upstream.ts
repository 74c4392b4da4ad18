import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { messageText } from '@cc/contracts';
import type { AskInput, SourceAdapter, SourceEvent } from '../sources/types';

const open = new Set<http.Server>();

/** Closes every scripted upstream still listening (for `afterEach`). */
export async function closeScripted(): Promise<void> {
  const servers = [...open];
  open.clear();
  await Promise.all(
    servers.map(
      (server) =>
        new Promise<void>((resolve) => {
          server.closeAllConnections();
          server.close(() => resolve());
        }),
    ),
  );
}

/**
 * An upstream that answers a streamed request with these writes of its body: the first at once, each next one
 * when the test calls `next` (after it saw what the previous one gave), so that each write is a read of its own;
 * the body ends after the last.
 */
export async function scriptedUpstream(writes: string[]) {
  let sent = 0;
  let res: http.ServerResponse | null = null;
  const next = () => {
    if (!res || sent > writes.length) return;
    if (sent === writes.length) res.end();
    else res.write(writes[sent]);
    sent += 1;
    if (sent === writes.length) next();
  };
  const server = http.createServer((req, r) => {
    req.resume();
    r.writeHead(200, { 'content-type': 'text/event-stream' });
    res = r;
    next();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  open.add(server);
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`, next };
}

/** A new conversation's ask of `baseUrl`: the question "hi", no context. */
export function askInput(baseUrl: string, patch: Partial<AskInput> = {}): AskInput {
  return {
    target: { baseUrl, serverId: null, token: 'k', proxy: null, connectTimeoutMs: 5000, readTimeoutMs: 5000 },
    model: 'gpt_3_5',
    modelCode: 'gpt-3.5-turbo',
    modelNameOf: () => 'gpt_3_5',
    text: 'hi',
    conversationId: 'c1',
    newConversation: true,
    parent: null,
    userMessageId: 'u1',
    askAgain: false,
    pluginIds: null,
    attachments: [],
    imageParts: [],
    loadContext: () => Promise.resolve([]),
    contextCount: -1,
    signal: new AbortController().signal,
    ...patch,
  };
}

/** Runs one ask of `adapter` against a scripted upstream: the events, the texts of its snapshots, its failure. */
export async function readAsk(
  adapter: SourceAdapter,
  up: { url: string; next: () => void },
  patch: Partial<AskInput> = {},
) {
  const texts: string[] = [];
  const events: SourceEvent[] = [];
  const failure = await (async () => {
    for await (const event of adapter.ask(askInput(up.url, patch))) {
      events.push(event);
      if (event.type === 'message') texts.push(messageText(event.message));
      up.next();
    }
  })().catch((e: unknown) => e);
  return { texts, events, failure };
}
