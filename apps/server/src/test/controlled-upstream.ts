import http from 'node:http';
import type { AddressInfo } from 'node:net';

/** One streamed completion the test writes by hand. */
export interface ControlledStream {
  /** The request body the relay sent. */
  body: Record<string, unknown>;
  /** Writes one content chunk. */
  send(text: string): void;
  /** Writes the finish reason and, unless `done` is false, `data: [DONE]`; then closes. */
  finish(options?: { done?: boolean; reason?: string | null }): void;
  /** Closes the connection without a finish reason or [DONE]. */
  cut(): void;
  /** Resolves when the relay aborted the request. */
  aborted: Promise<void>;
}

/**
 * An OpenAI-compatible upstream whose streams the test drives chunk by chunk (no timers): each streamed request
 * waits in `next()`; non-streamed requests (titles) get a fixed answer at once.
 */
export class ControlledUpstream {
  private readonly server: http.Server;
  private readonly waiting: ControlledStream[] = [];
  private readonly takers: ((s: ControlledStream) => void)[] = [];

  constructor() {
    this.server = http.createServer((req, res) => {
      let raw = '';
      req.on('data', (c: Buffer) => (raw += c.toString()));
      req.on('end', () => this.handle(JSON.parse(raw || '{}') as Record<string, unknown>, req, res));
    });
  }

  async listen(): Promise<string> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/v1/`;
  }

  /** The next streamed request (waits for it). */
  next(): Promise<ControlledStream> {
    const ready = this.waiting.shift();
    if (ready) return Promise.resolve(ready);
    return new Promise((resolve) => this.takers.push(resolve));
  }

  close(): Promise<void> {
    this.server.closeAllConnections();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }

  private handle(body: Record<string, unknown>, req: http.IncomingMessage, res: http.ServerResponse): void {
    if (body.stream !== true) {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ choices: [{ message: { role: 'assistant', content: 'A title' } }] }));
      return;
    }
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    const chunk = (payload: unknown) => res.write(`data: ${JSON.stringify(payload)}\n\n`);
    const stream: ControlledStream = {
      body,
      send: (text) => chunk({ choices: [{ delta: { content: text }, finish_reason: null }] }),
      finish: ({ done = true, reason = 'stop' } = {}) => {
        chunk({ choices: [{ delta: {}, finish_reason: reason }] });
        res.end(done ? 'data: [DONE]\n\n' : undefined);
      },
      // After what was sent is on the wire: an answer cut off mid-way (a connection dropped before any answer
      // is sent once more: see upstreamRequest).
      cut: () => res.write('', () => res.destroy()),
      aborted: new Promise((resolve) => res.on('close', () => !res.writableEnded && resolve())),
    };
    const taker = this.takers.shift();
    if (taker) taker(stream);
    else this.waiting.push(stream);
    void req;
  }
}
