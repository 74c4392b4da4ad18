/* eslint-disable @typescript-eslint/no-explicit-any -- tests read untyped JSON bodies and events */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startEmulator } from './index';
import type { Emulator } from './index';
import { readEvents } from './test-helpers';

let emu: Emulator;

beforeAll(async () => {
  emu = await startEmulator({ apiKey: 'sk-emulator' });
});
afterAll(() => emu.close());
beforeEach(() => emu.reset());

function complete(body: Record<string, unknown>, key = 'sk-emulator'): Promise<Response> {
  return fetch(`${emu.apiBaseUrl}chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
    body: JSON.stringify(body),
  });
}

async function streamed(
  body: Record<string, unknown>,
): Promise<{ raw: string[]; chunks: any[]; text: string }> {
  const res = await complete({ ...body, stream: true });
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toContain('text/event-stream');
  const raw = await readEvents(res);
  const chunks = raw.filter((l) => l !== '[DONE]').map((l) => JSON.parse(l));
  const text = chunks.map((c) => c.choices[0]?.delta?.content ?? '').join('');
  return { raw, chunks, text };
}

describe('chat completions', () => {
  it('answers without streaming with the standard object and usage', async () => {
    const res = await complete({
      model: 'gpt-3.5-turbo',
      messages: [
        { role: 'system', content: 'You are helpful.' },
        { role: 'user', content: 'Hello there, API' },
      ],
    });
    expect(res.status).toBe(200);
    const body: any = await res.json();
    expect(body).toMatchObject({
      object: 'chat.completion',
      model: 'gpt-3.5-turbo',
      choices: [{ index: 0, message: { role: 'assistant' }, finish_reason: 'stop' }],
    });
    expect(body.id).toMatch(/^chatcmpl-/);
    expect(typeof body.created).toBe('number');
    const text: string = body.choices[0].message.content;
    expect(text).toContain('Hello there, API');
    expect(body.usage).toEqual({
      prompt_tokens: 6,
      completion_tokens: text.trim().split(/\s+/).length,
      total_tokens: 6 + text.trim().split(/\s+/).length,
    });
  });

  it('streams deltas: role first, content chunks, finish_reason stop, then [DONE]', async () => {
    const { raw, chunks, text } = await streamed({
      model: 'gpt-4',
      messages: [{ role: 'user', content: 'stream me' }],
    });
    expect(raw.at(-1)).toBe('[DONE]');
    expect(chunks[0].choices[0].delta).toMatchObject({ role: 'assistant' });
    for (const c of chunks) {
      expect(c).toMatchObject({ object: 'chat.completion.chunk', model: 'gpt-4', id: chunks[0].id });
      expect(c).not.toHaveProperty('usage');
    }
    const contentChunks = chunks.filter(
      (c) => typeof c.choices[0]?.delta?.content === 'string' && c.choices[0].delta.content,
    );
    expect(contentChunks.length).toBeGreaterThan(3);
    expect(contentChunks.every((c) => c.choices[0].finish_reason === null)).toBe(true);
    expect(contentChunks[0].choices[0].delta.content).toHaveLength(8);
    const last = chunks.at(-1);
    expect(last.choices[0]).toEqual({ index: 0, delta: {}, logprobs: null, finish_reason: 'stop' });
    expect(text).toContain('stream me');
    // Same prompt, same answer, streamed or not.
    const plain: any = await (
      await complete({ model: 'gpt-4', messages: [{ role: 'user', content: 'stream me' }] })
    ).json();
    expect(plain.choices[0].message.content).toBe(text);
  });

  it('adds a usage chunk with empty choices when stream_options.include_usage is set', async () => {
    const { raw, chunks, text } = await streamed({
      model: 'gpt-4o',
      messages: [{ role: 'user', content: 'count my words please' }],
      stream_options: { include_usage: true },
    });
    expect(raw.at(-1)).toBe('[DONE]');
    const usageChunk = chunks.at(-1);
    expect(usageChunk.choices).toEqual([]);
    const words = text.trim().split(/\s+/).length;
    expect(usageChunk.usage).toEqual({ prompt_tokens: 4, completion_tokens: words, total_tokens: 4 + words });
    expect(chunks.slice(0, -1).every((c) => c.usage === null)).toBe(true);
    expect(chunks.at(-2).choices[0].finish_reason).toBe('stop');
  });

  it('applies #long, #done, #length and markdown', async () => {
    const long = await streamed({ model: 'gpt-4', messages: [{ role: 'user', content: '#long 150' }] });
    expect(long.text.trim().split(/\s+/)).toHaveLength(150);

    const done = await streamed({ model: 'gpt-4', messages: [{ role: 'user', content: '#done' }] });
    expect(done.raw.some((l) => l !== '[DONE]' && l.includes('[DONE]'))).toBe(true);
    expect(done.text).toContain('The marker [DONE] appears mid-answer and the stream continues.');
    expect(done.raw.at(-1)).toBe('[DONE]');

    const length = await streamed({ model: 'gpt-4', messages: [{ role: 'user', content: '#length' }] });
    expect(length.chunks.at(-1).choices[0].finish_reason).toBe('length');
    const nonStream: any = await (
      await complete({ model: 'gpt-4', messages: [{ role: 'user', content: '#length' }] })
    ).json();
    expect(nonStream.choices[0].finish_reason).toBe('length');

    const md = await streamed({ model: 'gpt-4', messages: [{ role: 'user', content: 'reply in markdown' }] });
    expect(md.text).toContain('```python');
    expect(md.text).toContain('$x^2$');

    // Web-only directives fall back to a text answer.
    const code = await streamed({ model: 'gpt-4', messages: [{ role: 'user', content: '#code' }] });
    expect(code.text).toContain('#code');
  });

  it('uses the last user message and mentions image parts', async () => {
    const { text } = await streamed({
      model: 'gpt-4o',
      messages: [
        { role: 'user', content: 'old question' },
        { role: 'assistant', content: 'old answer' },
        {
          role: 'user',
          content: [
            { type: 'text', text: 'describe this picture' },
            { type: 'image_url', image_url: { url: 'https://example.com/cat.png' } },
          ],
        },
      ],
    });
    expect(text).toContain('describe this picture');
    expect(text).toContain('https://example.com/cat.png');
    expect(text).not.toContain('old question');
  });

  it('rejects unknown models with 404, bad bodies with 400 and wrong keys with 401', async () => {
    const unknown = await complete({ model: 'gpt-9', messages: [{ role: 'user', content: 'x' }] });
    expect(unknown.status).toBe(404);
    expect(await unknown.json()).toEqual({
      error: {
        message: expect.stringContaining('gpt-9'),
        type: 'invalid_request_error',
        param: null,
        code: 'model_not_found',
      },
    });
    const noMessages = await complete({ model: 'gpt-4', messages: [] });
    expect(noMessages.status).toBe(400);
    expect(((await noMessages.json()) as any).error.type).toBe('invalid_request_error');
    const wrongKey = await complete(
      { model: 'gpt-4', messages: [{ role: 'user', content: 'x' }] },
      'sk-wrong',
    );
    expect(wrongKey.status).toBe(401);
    expect(((await wrongKey.json()) as any).error.code).toBe('invalid_api_key');
  });

  it('lists models', async () => {
    const res = await fetch(`${emu.apiBaseUrl}models`, { headers: { authorization: 'Bearer sk-emulator' } });
    const body: any = await res.json();
    expect(body.object).toBe('list');
    expect(body.data.map((m: any) => m.id)).toEqual(expect.arrayContaining(['gpt-3.5-turbo', 'gpt-4']));
    for (const m of body.data) expect(m).toMatchObject({ object: 'model', owned_by: expect.any(String) });
  });
});
