/* eslint-disable @typescript-eslint/no-explicit-any -- tests read untyped JSON bodies and events */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startEmulator } from './index';
import type { Emulator } from './index';
import { postWebAsk, readSomeEvents, webAsk } from './test-helpers';

let emu: Emulator;

beforeAll(async () => {
  emu = await startEmulator();
});
afterAll(() => emu.close());
beforeEach(() => emu.reset());

function apiStream(content: string, signal?: AbortSignal): Promise<Response> {
  return fetch(`${emu.apiBaseUrl}chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'gpt-4', stream: true, messages: [{ role: 'user', content }] }),
    signal,
  });
}

async function readUntilError(res: Response): Promise<{ events: string[]; error: unknown }> {
  const reader = res.body!.getReader();
  const events: string[] = [];
  try {
    for (;;) {
      const got = await readSomeEvents(reader, 1);
      if (got.length === 0) return { events, error: null };
      events.push(...got);
    }
  } catch (error) {
    return { events, error };
  }
}

describe('status faults', () => {
  it('setFault applies until cleared; once applies to the next ask only', async () => {
    emu.setFault({ status: 429 });
    const a = await postWebAsk(emu.webBaseUrl, 'hi');
    expect(a.status).toBe(429);
    expect(await a.json()).toHaveProperty('detail');
    const b = await fetch(`${emu.apiBaseUrl}chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'gpt-4', messages: [{ role: 'user', content: 'x' }] }),
    });
    expect(b.status).toBe(429);
    expect(((await b.json()) as any).error.code).toBe('rate_limit_exceeded');
    // Non-ask endpoints are not affected.
    expect((await fetch(`${emu.webBaseUrl}conversations`)).status).toBe(200);
    emu.setFault(null);
    expect((await webAsk(emu.webBaseUrl, 'hi')).status).toBe(200);

    emu.setFault({ status: 503, body: '{"detail":"custom"}', once: true });
    const c = await postWebAsk(emu.webBaseUrl, 'hi');
    expect(c.status).toBe(503);
    expect(await c.json()).toEqual({ detail: 'custom' });
    expect((await webAsk(emu.webBaseUrl, 'hi')).status).toBe(200);
  });

  it('#fault:status=N in the prompt', async () => {
    const res = await postWebAsk(emu.webBaseUrl, 'please #fault:status=500 fail');
    expect(res.status).toBe(500);
    const api = await apiStream('#fault:status=401');
    expect(api.status).toBe(401);
  });
});

describe('stream faults', () => {
  it('disconnect after N chunks destroys the socket (web and api)', async () => {
    const web = await postWebAsk(emu.webBaseUrl, '#fault:disconnect=3 #long 100');
    const w = await readUntilError(web);
    expect(w.error).toBeTruthy();
    expect(w.events).toHaveLength(3);
    expect(w.events).not.toContain('[DONE]');

    emu.setFault({ disconnectAfterChunks: 2, once: true });
    const api = await apiStream('hello');
    const a = await readUntilError(api);
    expect(a.error).toBeTruthy();
    expect(a.events).toHaveLength(2);
    // The emulator cut it, not the client.
    const record = emu.requests.at(-1);
    expect(record?.aborted).toBe(false);
    expect(record?.endedAt).toBeTypeOf('number');
  });

  it('stall keeps the socket open; the client abort is recorded promptly', async () => {
    const controller = new AbortController();
    const res = await postWebAsk(emu.webBaseUrl, '#fault:stall=2 #long 50', { signal: controller.signal });
    const reader = res.body!.getReader();
    const events = await readSomeEvents(reader, 2);
    expect(events).toHaveLength(2);
    // Nothing more arrives while stalled.
    const next = await Promise.race([
      reader.read().then(() => 'data'),
      new Promise((resolve) => setTimeout(() => resolve('timeout'), 150)),
    ]);
    expect(next).toBe('timeout');
    const ask = emu.requests.find((r) => r.path === '/backend-api/conversation');
    expect(ask?.aborted).toBe(false);
    const abortTime = Date.now();
    controller.abort();
    const aborted = await emu.waitForRequest(
      (r) => r.path === '/backend-api/conversation' && r.aborted === true,
      2000,
    );
    expect(aborted.abortedAt! - abortTime).toBeLessThan(1000);

    // The partial answer is kept, marked as interrupted.
    const conversationId = JSON.parse(events[0] ?? '{}').conversation_id;
    const conv: any = await (await fetch(`${emu.webBaseUrl}conversation/${conversationId}`)).json();
    const partial = conv.mapping[conv.current_node].message;
    expect(partial.status).toBe('finished_partial_completion');
    expect(partial.metadata.finish_details).toEqual({ type: 'interrupted' });
  });

  it('records aborted when the client leaves a slow api stream', async () => {
    emu.setKnobs({ tokensPerSecond: 20 });
    const controller = new AbortController();
    const res = await apiStream('#long 300', controller.signal);
    await readSomeEvents(res.body!.getReader(), 3);
    controller.abort();
    const record = await emu.waitForRequest((r) => r.aborted === true, 2000);
    expect(record.path).toBe('/v1/chat/completions');
  });

  it("a client that leaves during a stream's pause ends the pause: no timer of it is left", async () => {
    const timers = () => process.getActiveResourcesInfo().filter((r) => r === 'Timeout').length;
    const before = timers();
    emu.setKnobs({ firstTokenLatencyMs: 60_000 });
    const controller = new AbortController();
    const res = await apiStream('#long 30', controller.signal);
    expect(res.status).toBe(200);
    // The stream now waits out its first-token latency.
    expect(timers()).toBeGreaterThan(before);
    controller.abort();
    await emu.waitForRequest((r) => r.aborted === true, 2000);
    await new Promise((resolve) => setImmediate(resolve));
    expect(timers()).toBe(before);
  });

  it('malformed line after N chunks, then the stream continues to [DONE]', async () => {
    const web = await webAsk(emu.webBaseUrl, '#fault:malformed=1 hi');
    expect(web.raw[1]).toBe('{not json');
    expect(web.raw.at(-1)).toBe('[DONE]');
    expect(web.raw.filter((l) => l === '{not json')).toHaveLength(1);

    emu.setFault({ malformedLineAfterChunks: 2 });
    const api = await apiStream('hello');
    const text = await api.text();
    const lines = text.split('\n\n').filter(Boolean);
    expect(lines[2]).toBe('data: {not json');
    expect(lines.at(-1)).toBe('data: [DONE]');
  });

  it('error inside the stream', async () => {
    const web = await webAsk(emu.webBaseUrl, '#fault:error');
    const errorEvent = web.events.find((e) => e.error);
    expect(errorEvent).toEqual({
      message: null,
      conversation_id: web.conversationId,
      error: expect.stringContaining('Something went wrong'),
    });
    expect(web.raw.at(-1)).toBe('[DONE]');

    emu.setFault({ errorInStream: 'upstream exploded', once: true });
    const web2 = await webAsk(emu.webBaseUrl, 'x');
    expect(web2.events.find((e) => e.error)?.error).toBe('upstream exploded');

    const api = await apiStream('#fault:error');
    const lines = (await api.text()).split('\n\n').filter(Boolean);
    expect(JSON.parse(lines.at(-1)!.slice(6))).toMatchObject({ error: { type: 'server_error' } });
  });
});

describe('knobs', () => {
  it('first-token latency is measurable on both protocols', async () => {
    emu.setKnobs({ firstTokenLatencyMs: 250 });
    const t0 = Date.now();
    const web = await postWebAsk(emu.webBaseUrl, 'latency');
    const reader = web.body!.getReader();
    const first = await readSomeEvents(reader, 1);
    const tEcho = Date.now() - t0;
    await readSomeEvents(reader, 1);
    const tFirstToken = Date.now() - t0;
    await reader.cancel();
    expect(JSON.parse(first[0] ?? '{}').message.author.role).toBe('user');
    expect(tEcho).toBeLessThan(200);
    expect(tFirstToken).toBeGreaterThanOrEqual(240);

    const t1 = Date.now();
    const api = await apiStream('latency');
    await readSomeEvents(api.body!.getReader(), 1);
    expect(Date.now() - t1).toBeGreaterThanOrEqual(240);
  });

  it('tokensPerSecond paces the chunks', async () => {
    emu.setKnobs({ tokensPerSecond: 100, chunkSize: 8 }); // 2 tokens per chunk → 50 chunks/s
    const t0 = Date.now();
    const res = await apiStream('#long 20');
    const text = await res.text();
    const contentChunks = text
      .split('\n\n')
      .filter((l) => l.includes('"content":"') && !l.includes('"role"')).length;
    const elapsed = Date.now() - t0;
    expect(contentChunks).toBeGreaterThan(10);
    expect(elapsed).toBeGreaterThanOrEqual((contentChunks - 1) * 20 * 0.9);
  });

  it('reset restores the start knobs', async () => {
    const custom = await startEmulator({ knobs: { chunkSize: 3 } });
    try {
      custom.setKnobs({ chunkSize: 40 });
      custom.reset();
      const r = await webAsk(custom.webBaseUrl, 'abc');
      expect(r.snapshots[1].message.content.parts[0]).toHaveLength(3);
    } finally {
      await custom.close();
    }
  });
});

describe('control endpoint', () => {
  it('sets knobs and faults, lists requests and resets', async () => {
    const knobs = await fetch(`${emu.url}/__control/knobs`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ chunkSize: 4 }),
    });
    expect(await knobs.json()).toEqual({ firstTokenLatencyMs: 0, tokensPerSecond: 0, chunkSize: 4 });
    const bad = await fetch(`${emu.url}/__control/knobs`, {
      method: 'POST',
      body: JSON.stringify({ chunkSize: 0 }),
    });
    expect(bad.status).toBe(400);

    await fetch(`${emu.url}/__control/fault`, {
      method: 'POST',
      body: JSON.stringify({ status: 418, once: true }),
    });
    expect((await postWebAsk(emu.webBaseUrl, 'x')).status).toBe(418);
    expect((await postWebAsk(emu.webBaseUrl, 'x')).status).toBe(200);
    await fetch(`${emu.url}/__control/fault`, { method: 'POST', body: JSON.stringify({ status: 500 }) });
    await fetch(`${emu.url}/__control/fault`, { method: 'POST', body: 'null' });
    expect((await postWebAsk(emu.webBaseUrl, 'x')).status).toBe(200);

    const requests: any = await (await fetch(`${emu.url}/__control/requests`)).json();
    expect(requests.map((r: any) => r.path)).toEqual([
      '/backend-api/conversation',
      '/backend-api/conversation',
      '/backend-api/conversation',
    ]);
    expect(requests[0]).toMatchObject({ method: 'POST', status: 418, body: { action: 'next' } });

    await fetch(`${emu.url}/__control/reset`, { method: 'POST' });
    expect(emu.requests).toHaveLength(0);
    expect(await (await fetch(`${emu.url}/__control/knobs`)).json()).toEqual({
      firstTokenLatencyMs: 0,
      tokensPerSecond: 0,
      chunkSize: 8,
    });
  });
});

describe('close', () => {
  it('ends open streams and resolves', async () => {
    const other = await startEmulator();
    const res = await postWebAsk(other.webBaseUrl, '#fault:stall=1');
    const reader = res.body!.getReader();
    await readSomeEvents(reader, 1);
    const t0 = Date.now();
    await other.close();
    expect(Date.now() - t0).toBeLessThan(1000);
    await expect(reader.read()).rejects.toBeTruthy();
    expect(other.requests[0]?.aborted).toBe(false);
  });
});
