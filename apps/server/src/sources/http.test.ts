import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Readable } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import { UpstreamNetworkError, UpstreamTimeout } from './errors';
import { upstreamRequest } from './http';

const OPTIONS = { connectTimeoutMs: 5000, readTimeoutMs: 5000, proxy: null };

/**
 * An upstream that drops the connection of the first `drops` requests it receives without answering (as a server
 * does to a kept-alive connection whose idle timeout has just ended), and answers the others with their body.
 */
async function flakyUpstream(drops: number) {
  const received: string[] = [];
  const server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      received.push(body);
      if (received.length <= drops) req.socket.destroy();
      else res.end(`echo ${body}`);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1/chat/completions`;
  return { url, received, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

let closeUpstream: (() => Promise<void>) | null = null;
afterEach(async () => {
  await closeUpstream?.();
  closeUpstream = null;
});

describe('upstreamRequest', () => {
  it('sends a request once more when its connection closes before any answer', async () => {
    const upstream = await flakyUpstream(1);
    closeUpstream = upstream.close;
    const res = await upstreamRequest(upstream.url, { method: 'POST', body: '{"q":1}' }, OPTIONS);
    expect(res.status).toBe(200);
    expect(await res.text()).toBe('echo {"q":1}');
    expect(upstream.received).toEqual(['{"q":1}', '{"q":1}']);
  });

  it('sends it only once more: a second close is the upstream failing', async () => {
    const upstream = await flakyUpstream(2);
    closeUpstream = upstream.close;
    const err = await upstreamRequest(upstream.url, { method: 'POST', body: 'x' }, OPTIONS).catch(
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(UpstreamNetworkError);
    expect(upstream.received).toHaveLength(2);
  });

  it('does not send again a body that was streamed (it cannot be read twice)', async () => {
    const upstream = await flakyUpstream(1);
    closeUpstream = upstream.close;
    const err = await upstreamRequest(
      upstream.url,
      { method: 'POST', body: Readable.from([Buffer.from('streamed')]) },
      OPTIONS,
    ).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(UpstreamNetworkError);
    expect(upstream.received).toEqual(['streamed']);
  });

  it('does not send again once the caller gave up', async () => {
    const upstream = await flakyUpstream(1);
    closeUpstream = upstream.close;
    const controller = new AbortController();
    const pending = upstreamRequest(
      upstream.url,
      { method: 'POST', body: 'y' },
      { ...OPTIONS, signal: controller.signal },
    ).catch((e: unknown) => e);
    controller.abort();
    expect(await pending).toBeInstanceOf(Error);
    expect(upstream.received.length).toBeLessThanOrEqual(1);
  });

  /** An upstream that sends the headers and a first piece of the body, then does what `then` says. */
  async function halfAnswer(then: 'drop' | 'stall') {
    const server = http.createServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write('data: first\n\n', () => {
        if (then === 'drop') res.socket?.destroy();
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    closeUpstream = () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      });
    return `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1/chat/completions`;
  }

  async function readAll(res: { body: AsyncIterable<Uint8Array> }) {
    const pieces: string[] = [];
    const failure = await (async () => {
      for await (const c of res.body) pieces.push(Buffer.from(c).toString());
    })().catch((e: unknown) => e);
    return { pieces, failure };
  }

  it('a body cut off after its first piece fails as a network error of the upstream', async () => {
    const res = await upstreamRequest(await halfAnswer('drop'), { method: 'POST', body: 'q' }, OPTIONS);
    const { pieces, failure } = await readAll(res);
    expect(pieces.join('')).toBe('data: first\n\n');
    expect(failure).toBeInstanceOf(UpstreamNetworkError);
  });

  it('a body that stops arriving fails as a read timeout of the upstream', async () => {
    const url = await halfAnswer('stall');
    const res = await upstreamRequest(url, { method: 'POST', body: 'q' }, { ...OPTIONS, readTimeoutMs: 100 });
    const { pieces, failure } = await readAll(res);
    expect(pieces.join('')).toBe('data: first\n\n');
    expect(failure).toBeInstanceOf(UpstreamTimeout);
  });

  it('a body the caller stops reading is given up (its connection closed, not left open)', async () => {
    const url = await halfAnswer('stall');
    const res = await upstreamRequest(url, { method: 'POST', body: 'q' }, OPTIONS);
    for await (const c of res.body) {
      expect(Buffer.from(c).toString()).toBe('data: first\n\n');
      break;
    }
    // Read again after giving up: nothing more comes (the body was destroyed).
    const { pieces } = await readAll(res);
    expect(pieces).toEqual([]);
  });
});
