import zlib from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket, { WebSocketServer } from 'ws';
import { until } from '../test/chat-client';
import { createTestApp } from '../test/harness';
import type { TestApp } from '../test/harness';
import {
  InlineDeflater,
  SentBytes,
  SHARED_CONTEXT_MIN_BYTES,
  SharedCompressor,
  compressInline,
  socketsWithOwnContext,
  worthCompressing,
} from './inline-deflate';

const OPTIONS = { level: 1, memLevel: 4, windowBits: 13 };
const frame = (i: number) =>
  Buffer.from(JSON.stringify({ type: 'append', text: `word ${i} and more words` }));

/** A receiver keeping its context, as a browser does. */
function inflater() {
  const inflate = zlib.createInflateRaw({ windowBits: 15 });
  const parts: Buffer[] = [];
  inflate.on('data', (chunk: Buffer) => parts.push(chunk));
  let failed: Error | null = null;
  inflate.on('error', (err: Error) => (failed = err));
  return (data: Buffer) =>
    new Promise<string>((resolve, reject) => {
      if (failed) return reject(failed);
      inflate.write(data);
      inflate.flush(zlib.constants.Z_SYNC_FLUSH, () =>
        failed ? reject(failed) : resolve(Buffer.concat(parts.splice(0)).toString()),
      );
    });
}

describe('InlineDeflater', () => {
  it('compresses frame after frame with the context kept, each flushed to a byte boundary', async () => {
    const deflater = new InlineDeflater(OPTIONS);
    const receive = inflater();
    const sizes: number[] = [];
    for (let i = 0; i < 50; i++) {
      const out = deflater.push(frame(i));
      expect([...out.subarray(-4)]).toEqual([0, 0, 0xff, 0xff]);
      sizes.push(out.length);
      expect(await receive(out)).toBe(frame(i).toString());
    }
    // Later frames refer to the earlier ones: far smaller than the first.
    expect(Math.max(...sizes.slice(10))).toBeLessThan(sizes[0]! / 2);
    deflater.close();
  });

  it('takes input larger than its output space in one push, and forgets the context on reset', async () => {
    const deflater = new InlineDeflater(OPTIONS);
    const receive = inflater();
    const receive2 = inflater();
    const big = Buffer.from(Array.from({ length: 40_000 }, (_, i) => (i * 7919) % 10_007).join(','));
    expect(await receive(deflater.push(big))).toBe(big.toString());
    deflater.push(frame(1));
    deflater.reset();
    const fresh = new InlineDeflater(OPTIONS);
    expect(deflater.push(frame(2)).equals(fresh.push(frame(2)))).toBe(true);
    deflater.close();
    fresh.close();
    expect(() => deflater.push(frame(3))).toThrow();
    // Text is taken as a string too (a socket hands a text frame so); anything else is refused, never written.
    const text = new InlineDeflater(OPTIONS);
    expect(await receive2(text.push('plain text'))).toBe('plain text');
    expect(() => text.push(new Uint16Array(4) as unknown as Buffer)).toThrow(TypeError);
    text.close();
  });
});

describe('SentBytes', () => {
  it('keeps the last bytes up to its capacity, as it grows and once it is full', () => {
    const sent = new SentBytes(16);
    let all = '';
    for (const piece of ['ab', 'cdefg', 'hijklmnop', 'q', 'rstuvwxyz0123', '456789ABCDEFGHIJKLMNOP', 'QR']) {
      sent.add(Buffer.from(piece));
      all += piece;
      expect(sent.last(16).toString()).toBe(all.slice(-16));
      expect(sent.last(3).toString()).toBe(all.slice(-3));
    }
    sent.clear();
    expect(sent.last(16).length).toBe(0);
  });
});

describe('SharedCompressor', () => {
  it("serves many sockets at once, each frame referring only to what that socket's client holds", async () => {
    const shared = new SharedCompressor({ level: 1, memLevel: 4 });
    const words = 'streaming answers arrive in small pieces that repeat words and the same json'.split(' ');
    const sockets = Array.from({ length: 5 }, (_, n) => ({
      sent: SharedCompressor.sentBytes(13),
      receive: inflater(),
      text: '',
      n,
    }));
    const appendSizes: number[] = [];
    for (let i = 0; i < 60; i++) {
      for (const socket of sockets) {
        const piece = `${words[(i * 7 + socket.n) % words.length]} `;
        socket.text += piece;
        const data = Buffer.from(JSON.stringify({ type: 'append', text: piece }));
        const out = shared.compress(13, socket.sent, data);
        socket.sent.add(data);
        if (i >= 10) appendSizes.push(out.length);
        expect(await socket.receive(out)).toBe(data.toString());
      }
    }
    // Text one socket just sent, sent next by another whose client never saw it: the second frame cannot refer to
    // the first socket's bytes (its client would read something else).
    const unique = Buffer.from(
      JSON.stringify({ type: 'append', text: 'a sentence only the first one has sent' }),
    );
    for (const socket of sockets.slice(0, 2)) {
      const out = shared.compress(13, socket.sent, unique);
      socket.sent.add(unique);
      socket.text += 'a sentence only the first one has sent';
      expect(await socket.receive(out)).toBe(unique.toString());
    }
    // The end of each answer: the whole message, its text found in what the socket streamed before it.
    for (const socket of sockets) {
      const whole = Buffer.from(JSON.stringify({ type: 'message', text: socket.text }));
      const out = shared.compress(13, socket.sent, whole);
      socket.sent.add(whole);
      expect(await socket.receive(out)).toBe(whole.toString());
      expect(out.length).toBeLessThan(whole.length / 4);
    }
    // An append refers back to the previous frames' JSON: smaller than its own text.
    const median = appendSizes.sort((a, b) => a - b)[appendSizes.length >> 1]!;
    expect(median).toBeLessThan(JSON.stringify({ type: 'append', text: 'answers ' }).length / 2);
  });
});

describe('chat sockets compress in-line', () => {
  let t: TestApp;
  let url: string;
  let cookie: string;
  beforeAll(async () => {
    t = await createTestApp();
    url = (await t.app.listen({ host: '127.0.0.1', port: 0 })).replace(/^http/, 'ws');
    const u = await t.createUser();
    cookie = await t.login(u.row.username, u.password);
  });
  afterAll(() => t.close());

  /** Opens a chat socket with `options` and returns both ends (the server's as the websocket server holds it). */
  async function connect(options: WebSocket.ClientOptions) {
    const before = new Set(t.app.websocketServer.clients);
    const client = new WebSocket(`${url}/api/chat`, { ...options, headers: { cookie } });
    await new Promise((resolve, reject) => {
      client.once('open', resolve);
      client.once('error', reject);
    });
    const server = [...t.app.websocketServer.clients].find((s) => !before.has(s))!;
    return { client, server };
  }

  type Extension = {
    params: Record<string, unknown>;
    compress(d: Buffer, fin: boolean, cb: () => void): void;
  };
  const extensionOf = (socket: WebSocket) =>
    (socket as unknown as { _extensions: Record<string, Extension | undefined> })._extensions[
      'permessage-deflate'
    ];

  /** The server sends `count` frames; the client reads each of them, in order. */
  async function expectEveryFrame(server: WebSocket, client: WebSocket, count: number) {
    const received: string[] = [];
    const all = new Promise<void>((resolve) =>
      client.on('message', (data: Buffer) => received.push(data.toString()) === count && resolve()),
    );
    for (let i = 0; i < count; i++) server.send(frame(i).toString());
    await all;
    expect(received).toEqual(Array.from({ length: count }, (_, i) => frame(i).toString()));
  }

  it('the client reads every frame, and a frame is compressed before compress returns', async () => {
    const { client, server } = await connect({ perMessageDeflate: true });
    expect(client.extensions).toContain('permessage-deflate');
    await expectEveryFrame(server, client, 100);
    // Last: a frame compressed and never sent leaves the client's context behind the server's.
    let done = false;
    extensionOf(server)!.compress(frame(0), true, () => (done = true));
    expect(done).toBe(true);
    client.terminate();
  });

  it('honours a client that asks the server to keep no context', async () => {
    const { client, server } = await connect({ perMessageDeflate: { serverNoContextTakeover: true } });
    expect(extensionOf(server)!.params.server_no_context_takeover).toBe(true);
    await expectEveryFrame(server, client, 20);
    client.terminate();
  });

  it('a client that offers no compression gets plain frames', async () => {
    const { client, server } = await connect({ perMessageDeflate: false });
    expect(client.extensions).toBe('');
    const got = new Promise<string>((resolve) =>
      client.once('message', (data: Buffer) => resolve(data.toString())),
    );
    server.send('plain');
    expect(await got).toBe('plain');
    client.terminate();
  });
});

describe("a client's messages", () => {
  let wss: WebSocketServer;
  let url: string;
  const MAX_PAYLOAD = 64 * 1024;
  beforeAll(async () => {
    wss = new WebSocketServer({
      host: '127.0.0.1',
      port: 0,
      maxPayload: MAX_PAYLOAD,
      perMessageDeflate: { threshold: 0, clientNoContextTakeover: true },
    });
    wss.on('connection', (socket) => {
      compressInline(socket, OPTIONS);
      // A refused message is reported on the socket too (the close code is what the test reads).
      socket.on('error', () => undefined);
    });
    await new Promise((resolve) => wss.once('listening', resolve));
    url = `ws://127.0.0.1:${(wss.address() as { port: number }).port}`;
  });
  afterAll(() => new Promise((resolve) => wss.close(resolve)));

  type Inflating = { _inflate: unknown; params: Record<string, unknown> };
  const inflatingOf = (socket: WebSocket) =>
    (socket as unknown as { _extensions: Record<string, Inflating> })._extensions['permessage-deflate']!;

  async function open() {
    const serverSide = new Promise<WebSocket>((resolve) => wss.once('connection', resolve));
    const client = new WebSocket(url, { perMessageDeflate: { threshold: 0 } });
    await new Promise((resolve) => client.once('open', resolve));
    return { client, server: await serverSide };
  }

  it('each stands alone: read correctly, and no inflate state is kept after it', async () => {
    const { client, server } = await open();
    expect(inflatingOf(server).params.client_no_context_takeover).toBe(true);
    const texts = ['{"type":"ask","text":"hello"}', '{"type":"stop"}', '{"type":"ask","text":"hello again"}'];
    for (const text of texts) {
      const got = new Promise<string>((resolve) =>
        server.once('message', (d: Buffer) => resolve(d.toString())),
      );
      client.send(text);
      expect(await got).toBe(text);
      expect(inflatingOf(server)._inflate).toBeNull();
    }
    client.terminate();
  });

  it('one that inflates beyond the payload limit still closes the socket with 1009', async () => {
    const { client } = await open();
    const closed = new Promise<number>((resolve) => client.once('close', resolve));
    client.send('a'.repeat(MAX_PAYLOAD + 1));
    expect(await closed).toBe(1009);
  });
});

describe('contexts of their own, up to a limit', () => {
  let wss: WebSocketServer;
  let url: string;
  let limit = 0;
  beforeAll(async () => {
    wss = new WebSocketServer({ host: '127.0.0.1', port: 0, perMessageDeflate: { threshold: 0 } });
    wss.on('connection', (socket) => compressInline(socket, OPTIONS, limit));
    await new Promise((resolve) => wss.once('listening', resolve));
    url = `ws://127.0.0.1:${(wss.address() as { port: number }).port}`;
  });
  afterAll(() => new Promise((resolve) => wss.close(resolve)));

  it('beyond it, sockets share one, and every client still reads every frame, interleaved', async () => {
    const before = socketsWithOwnContext();
    // One more socket may have a context of its own (other tests' sockets may hold some).
    limit = before + 1;
    const pairs: { client: WebSocket; server: WebSocket; received: string[] }[] = [];
    for (let n = 0; n < 4; n++) {
      const serverSide = new Promise<WebSocket>((resolve) => wss.once('connection', resolve));
      const client = new WebSocket(url, { perMessageDeflate: true });
      await new Promise((resolve) => client.once('open', resolve));
      const received: string[] = [];
      client.on('message', (data: Buffer) => received.push(data.toString()));
      pairs.push({ client, server: await serverSide, received });
      // A socket takes its context at its first frame.
      pairs[n]!.server.send(frame(n).toString());
    }
    expect(socketsWithOwnContext()).toBe(before + 1);
    const sentTexts = pairs.map((_, n) => [frame(n).toString()]);
    for (let i = 0; i < 40; i++)
      pairs.forEach(({ server }, n) => {
        const text = i % 13 === 12 ? sentTexts[n]!.join('') : frame(i * 10 + n).toString();
        sentTexts[n]!.push(text);
        server.send(text);
      });
    await until(() => pairs.every((p, n) => p.received.length === sentTexts[n]!.length));
    pairs.forEach(({ received }, n) => expect(received).toEqual(sentTexts[n]));
    await Promise.all(
      pairs.map(
        ({ client }) =>
          new Promise((resolve) => {
            client.once('close', resolve);
            client.close();
          }),
      ),
    );
    await until(() => socketsWithOwnContext() === before);
  });

  it('a socket on the shared context sends short messages uncompressed; its client reads them among the others', async () => {
    limit = socketsWithOwnContext(); // no context of its own for the next sockets
    const serverSide = new Promise<WebSocket>((resolve) => wss.once('connection', resolve));
    const client = new WebSocket(url, { perMessageDeflate: true });
    await new Promise((resolve) => client.once('open', resolve));
    const server = await serverSide;
    const received: string[] = [];
    client.on('message', (data: Buffer) => received.push(data.toString()));
    const wire = () => (client as unknown as { _socket: { bytesRead: number } })._socket.bytesRead;
    const read = (count: number) => until(() => received.length === count);
    // Its first message puts it on the shared context.
    server.send(frame(0).toString());
    await read(1);
    const short = Buffer.from('8 bytes!');
    expect(worthCompressing(server, short.length)).toBe(false);
    expect(worthCompressing(server, SHARED_CONTEXT_MIN_BYTES)).toBe(true);
    let before = wire();
    server.send(short, { compress: worthCompressing(server, short.length) });
    await read(2);
    // The frame's 2-byte header and the bytes themselves.
    expect(wire() - before).toBe(2 + short.length);
    before = wire();
    server.send(frame(0).toString());
    await read(3);
    // Compressed, referring back to the first frame (not to the uncompressed one, which its client never inflated).
    expect(wire() - before).toBeLessThan(frame(0).length / 2);
    expect(received).toEqual([frame(0).toString(), '8 bytes!', frame(0).toString()]);
    // A socket with a context of its own compresses any message.
    limit = socketsWithOwnContext() + 1;
    const ownSide = new Promise<WebSocket>((resolve) => wss.once('connection', resolve));
    const other = new WebSocket(url, { perMessageDeflate: true });
    await new Promise((resolve) => other.once('open', resolve));
    const own = await ownSide;
    own.send(frame(1).toString());
    await until(() => socketsWithOwnContext() === limit);
    expect(worthCompressing(own, short.length)).toBe(true);
    await Promise.all(
      [client, other].map(
        (c) =>
          new Promise((resolve) => {
            c.once('close', resolve);
            c.close();
          }),
      ),
    );
  });
});
