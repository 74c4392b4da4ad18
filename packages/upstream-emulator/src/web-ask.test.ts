/* eslint-disable @typescript-eslint/no-explicit-any -- tests read untyped JSON bodies and events */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startEmulator } from './index';
import type { Emulator } from './index';
import { finalMessages, textOf, webAsk } from './test-helpers';

let emu: Emulator;
let base: string;

beforeAll(async () => {
  emu = await startEmulator();
  base = emu.webBaseUrl;
});
afterAll(() => emu.close());
beforeEach(() => emu.reset());

describe('web ask stream', () => {
  it('echoes the user message, streams cumulative snapshots, generates a title and ends with [DONE]', async () => {
    const r = await webAsk(base, 'Hello emulator, how are you today?', {
      model: 'gpt-4',
      messageId: 'user-msg-1',
    });
    expect(r.status).toBe(200);
    expect(r.raw[r.raw.length - 1]).toBe('[DONE]');
    expect(r.raw.filter((l) => l === '[DONE]')).toHaveLength(1);

    const first = r.snapshots[0].message;
    expect(first).toMatchObject({
      id: 'user-msg-1',
      author: { role: 'user' },
      status: 'finished_successfully',
      content: { content_type: 'text', parts: ['Hello emulator, how are you today?'] },
      recipient: 'all',
    });

    const assistant = r.snapshots.slice(1);
    expect(assistant.length).toBeGreaterThan(3);
    let previous = '';
    for (const s of assistant) {
      const m = s.message;
      expect(m.author).toEqual({ role: 'assistant', name: null, metadata: {} });
      expect(typeof m.create_time).toBe('number');
      expect(m.weight).toBe(1);
      expect(m.recipient).toBe('all');
      expect(m.metadata.model_slug).toBe('gpt-4');
      expect(s.error).toBeNull();
      expect(s.conversation_id).toBe(r.conversationId);
      const text = textOf(m);
      expect(text.startsWith(previous)).toBe(true); // cumulative, not deltas
      previous = text;
    }
    const inProgress = assistant.slice(0, -1).map((s) => s.message);
    expect(inProgress.every((m) => m.status === 'in_progress' && m.end_turn === null)).toBe(true);
    const last = assistant[assistant.length - 1].message;
    expect(last.status).toBe('finished_successfully');
    expect(last.end_turn).toBe(true);
    expect(last.metadata.finish_details).toMatchObject({ type: 'stop' });
    expect(textOf(last)).toContain('Hello emulator, how are you today?');

    const titles = r.events.filter((e) => e.type === 'title_generation');
    expect(titles).toEqual([
      {
        type: 'title_generation',
        title: 'Hello Emulator How Are You Today',
        conversation_id: r.conversationId,
      },
    ]);
    // The title event comes after the last snapshot, right before [DONE].
    expect(JSON.parse(r.raw[r.raw.length - 2] ?? '{}').type).toBe('title_generation');
  });

  it('chunks the text by the chunkSize knob', async () => {
    emu.setKnobs({ chunkSize: 50 });
    const big = await webAsk(base, 'chunk test');
    emu.setKnobs({ chunkSize: 5 });
    const small = await webAsk(base, 'chunk test');
    const lastBig = finalMessages(big.snapshots)[1];
    const lastSmall = finalMessages(small.snapshots)[1];
    expect(textOf(lastBig)).toBe(textOf(lastSmall));
    expect(small.snapshots.length).toBeGreaterThan(big.snapshots.length * 5);
    const lengths = small.snapshots.slice(1, 4).map((s) => textOf(s.message).length);
    expect(lengths).toEqual([5, 10, 15]);
  });

  it('gives the same reply to the same prompt', async () => {
    const a = await webAsk(base, 'Determinism please');
    const b = await webAsk(base, 'Determinism please');
    const c = await webAsk(base, 'Something else');
    expect(textOf(finalMessages(a.snapshots)[1])).toBe(textOf(finalMessages(b.snapshots)[1]));
    expect(textOf(finalMessages(a.snapshots)[1])).not.toBe(textOf(finalMessages(c.snapshots)[1]));
  });

  it('adds a code block and inline math when the prompt mentions markdown', async () => {
    const r = await webAsk(base, 'Show me some markdown');
    const text = textOf(finalMessages(r.snapshots)[1]);
    expect(text).toContain('```python');
    expect(text).toContain('$x^2$');
    expect(text).toContain('## Answer');
  });

  it('#long N answers with N words', async () => {
    const r = await webAsk(base, '#long 321');
    const text = textOf(finalMessages(r.snapshots)[1]);
    expect(text.trim().split(/\s+/)).toHaveLength(321);
  });

  it('#done puts the literal [DONE] inside JSON data lines before the real end', async () => {
    const r = await webAsk(base, '#done');
    const inner = r.raw.filter((l) => l !== '[DONE]' && l.includes('[DONE]'));
    expect(inner.length).toBeGreaterThan(0);
    expect(() => inner.map((l) => JSON.parse(l))).not.toThrow();
    const text = textOf(finalMessages(r.snapshots)[1]);
    expect(text).toContain('The marker [DONE] appears mid-answer and the stream continues.');
    expect(text.indexOf('[DONE]')).toBeLessThan(text.length - 20);
    expect(r.raw[r.raw.length - 1]).toBe('[DONE]');
  });
});

describe('web conversations', () => {
  it('stores the conversation with a root system node and continues it', async () => {
    const root = 'aaaaaaaa-0000-4000-8000-000000000001';
    const r1 = await webAsk(base, 'First question', { parentId: root, model: 'gpt-4' });
    const convRes = await fetch(`${base}conversation/${r1.conversationId}`);
    expect(convRes.status).toBe(200);
    const conv: any = await convRes.json();
    expect(conv).toMatchObject({
      title: 'First Question',
      moderation_results: [],
      plugin_ids: null,
      gizmo_id: null,
      is_archived: false,
      conversation_template_id: null,
    });
    expect(typeof conv.create_time).toBe('number');
    expect(typeof conv.update_time).toBe('number');
    const rootNode = conv.mapping[root];
    expect(rootNode.parent).toBeNull();
    expect(rootNode.message.author.role).toBe('system');
    const [userId, assistantId] = finalMessages(r1.snapshots).map((m) => m.id);
    expect(rootNode.children).toEqual([userId]);
    expect(conv.mapping[userId].parent).toBe(root);
    expect(conv.mapping[userId].children).toEqual([assistantId]);
    expect(conv.current_node).toBe(assistantId);
    expect(conv.mapping[assistantId].message.status).toBe('finished_successfully');

    const r2 = await webAsk(base, 'Second question', {
      conversationId: r1.conversationId,
      parentId: assistantId,
      model: 'gpt-4',
    });
    expect(r2.conversationId).toBe(r1.conversationId);
    expect(r2.events.some((e) => e.type === 'title_generation')).toBe(false);
    const conv2: any = await (await fetch(`${base}conversation/${r1.conversationId}`)).json();
    const [user2, assistant2] = finalMessages(r2.snapshots).map((m) => m.id);
    expect(conv2.mapping[assistantId].children).toEqual([user2]);
    expect(conv2.current_node).toBe(assistant2);
    expect(conv2.title).toBe('First Question');
  });

  it('rejects an unknown conversation with 404 and an unknown parent with 400', async () => {
    const missing = await fetch(`${base}conversation`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        action: 'next',
        conversation_id: '00000000-0000-4000-8000-000000000000',
        parent_message_id: 'x',
        model: 'gpt-4',
        messages: [{ id: 'm', author: { role: 'user' }, content: { content_type: 'text', parts: ['hi'] } }],
      }),
    });
    expect(missing.status).toBe(404);
    expect(await missing.json()).toHaveProperty('detail');

    const r = await webAsk(base, 'hello');
    const badParent = await webAsk(base, 'again', { conversationId: r.conversationId, parentId: 'nope' });
    expect(badParent.status).toBe(400);
  });

  it('#length stops with max_tokens, and action continue appends to the same message', async () => {
    const r = await webAsk(base, '#length tell me everything');
    const answer = finalMessages(r.snapshots)[1];
    expect(answer.metadata.finish_details).toEqual({ type: 'max_tokens' });
    expect(answer.end_turn).toBe(false);
    const before = textOf(answer);

    const c = await webAsk(base, '', {
      action: 'continue',
      conversationId: r.conversationId,
      parentId: answer.id,
    });
    expect(c.status).toBe(200);
    expect(c.raw[c.raw.length - 1]).toBe('[DONE]');
    expect(c.snapshots.every((s) => s.message.id === answer.id)).toBe(true);
    expect(c.snapshots.every((s) => textOf(s.message).startsWith(before))).toBe(true);
    const final = c.snapshots[c.snapshots.length - 1].message;
    expect(textOf(final).length).toBeGreaterThan(before.length);
    expect(textOf(final)).toContain('the answer finishes normally');
    expect(final.metadata.finish_details).toMatchObject({ type: 'stop' });
    expect(final.end_turn).toBe(true);

    const conv: any = await (await fetch(`${base}conversation/${r.conversationId}`)).json();
    expect(textOf(conv.mapping[answer.id].message)).toBe(textOf(final));
    expect(conv.current_node).toBe(answer.id);
  });
});

describe('web content types', () => {
  it('#code: python call → execution_output with aggregate_result → final text', async () => {
    const r = await webAsk(base, '#code', { model: 'gpt-4-code-interpreter' });
    const [, call, output, final] = finalMessages(r.snapshots);
    expect(call).toMatchObject({
      author: { role: 'assistant' },
      recipient: 'python',
      content: { content_type: 'code', language: 'python' },
      end_turn: false,
    });
    expect(call.content.text).toContain('squares');
    expect(output.author).toMatchObject({ role: 'tool', name: 'python' });
    expect(output.content.content_type).toBe('execution_output');
    const agg = output.metadata.aggregate_result;
    expect(agg).toMatchObject({ status: 'success', in_kernel_exception: null, jupyter_messages: [] });
    expect(typeof agg.run_id).toBe('string');
    expect(agg.code).toBe(call.content.text);
    expect(typeof agg.start_time).toBe('number');
    expect(typeof agg.end_time).toBe('number');
    expect(agg.messages[0]).toMatchObject({
      message_type: 'stream',
      sender: 'server',
      stream_name: 'stdout',
    });
    expect(agg.messages[0].text).toContain('squares:');
    expect(agg.messages[1].message_type).toBe('image');
    expect(agg.messages[1].image_url).toMatch(/^file-service:\/\/file-/);
    expect(final.end_turn).toBe(true);
    expect(final.recipient).toBe('all');

    // The chart is downloadable and the kernel is reported as started.
    const fileId = agg.messages[1].image_url.slice('file-service://'.length);
    const dl: any = await (await fetch(`${base}files/${fileId}/download`)).json();
    expect(dl.status).toBe('success');
    const png = Buffer.from(await (await fetch(dl.download_url)).arrayBuffer());
    expect(png.subarray(1, 4).toString()).toBe('PNG');
    const kernel: any = await (await fetch(`${base}conversation/${r.conversationId}/interpreter`)).json();
    expect(kernel.kernel_started).toBe(true);
    expect(kernel.time_remaining_ms).toBeGreaterThan(0);
  });

  it('#browse: search call → tether_browsing_display → tether_quote → cited text', async () => {
    const r = await webAsk(base, '#browse vitest streaming', { model: 'gpt-4-browsing' });
    const [, call, display, quote, final] = finalMessages(r.snapshots);
    expect(call).toMatchObject({
      recipient: 'browser',
      content: { content_type: 'code' },
      metadata: { command: 'search', args: ['vitest streaming'] },
    });
    expect(display.author).toMatchObject({ role: 'tool', name: 'browser' });
    expect(display.content.content_type).toBe('tether_browsing_display');
    expect(display.content.result).toContain('vitest streaming');
    expect(quote.content).toMatchObject({ content_type: 'tether_quote', domain: 'example.com' });
    expect(quote.content.url).toMatch(/^https:\/\//);
    expect(typeof quote.content.title).toBe('string');
    expect(typeof quote.content.text).toBe('string');

    expect(final.metadata._cite_metadata.citation_format).toEqual({ name: 'tether_og' });
    expect(final.metadata._cite_metadata.metadata_list).toHaveLength(2);
    const text = textOf(final);
    const chars = Array.from(text);
    expect(final.metadata.citations).toHaveLength(2);
    for (const c of final.metadata.citations) {
      expect(chars.slice(c.start_ix, c.end_ix).join('')).toMatch(/^【\d†source】$/);
      expect(c.metadata).toMatchObject({
        title: expect.any(String),
        url: expect.any(String),
        text: expect.any(String),
      });
    }
  });

  it('#dalle: tool message with multimodal_text image parts, then text', async () => {
    const r = await webAsk(base, '#dalle a red fox', { model: 'gpt-4-dalle' });
    const messages = finalMessages(r.snapshots);
    const tool = messages.find((m) => m.author.role === 'tool');
    expect(tool.author.name).toBe('dalle.text2im');
    expect(tool.content.content_type).toBe('multimodal_text');
    expect(tool.content.parts.length).toBeGreaterThan(0);
    for (const part of tool.content.parts) {
      expect(part.asset_pointer).toMatch(/^file-service:\/\/file-/);
      expect(part).toMatchObject({ width: 1024, height: 1024, size_bytes: expect.any(Number) });
      expect(part.metadata.dalle).toMatchObject({
        prompt: expect.stringContaining('a red fox'),
        seed: expect.any(Number),
        serialization_title: expect.any(String),
      });
      const id = part.asset_pointer.slice('file-service://'.length);
      const dl: any = await (await fetch(`${base}files/${id}/download`)).json();
      const bytes = await (await fetch(dl.download_url)).arrayBuffer();
      expect(bytes.byteLength).toBe(part.size_bytes);
    }
    const final = messages[messages.length - 1];
    expect(final.author.role).toBe('assistant');
    expect(final.end_turn).toBe(true);
  });

  it('#plugin: call to <namespace>.<op> → tool with invoked_plugin → text', async () => {
    const plugins: any = await (await fetch(`${base}aip/p/approved?offset=0&limit=10`)).json();
    const chosen = plugins.items[2];
    const r = await webAsk(base, '#plugin', { model: 'gpt-4-plugins', pluginIds: [chosen.id] });
    const [, call, tool, final] = finalMessages(r.snapshots);
    expect(call.recipient.startsWith(`${chosen.namespace}.`)).toBe(true);
    expect(tool.author).toMatchObject({ role: 'tool', name: call.recipient });
    expect(tool.metadata.invoked_plugin).toEqual({
      type: 'remote',
      namespace: chosen.namespace,
      plugin_id: chosen.id,
      http_response_status: 200,
    });
    expect(final.end_turn).toBe(true);
    const conv: any = await (await fetch(`${base}conversation/${r.conversationId}`)).json();
    expect(conv.plugin_ids).toEqual([chosen.id]);
  });

  it('#error: a system_error tool message', async () => {
    const r = await webAsk(base, '#error');
    const tool = finalMessages(r.snapshots).find((m) => m.author.role === 'tool');
    expect(tool.content).toMatchObject({ content_type: 'system_error', name: 'tool_error' });
    expect(typeof tool.content.text).toBe('string');
  });

  it('mentions received images and attachments', async () => {
    const r = await webAsk(base, 'What is in these?', {
      content: {
        content_type: 'multimodal_text',
        parts: [
          { asset_pointer: 'file-service://file-IMAGE1', size_bytes: 100, width: 64, height: 48 },
          'What is in these?',
        ],
      },
      metadata: { attachments: [{ id: 'file-DOC1', name: 'report.pdf', size: 1234 }] },
    });
    expect(r.snapshots[0].message.content.content_type).toBe('multimodal_text');
    expect(r.snapshots[0].message.metadata.attachments).toEqual([
      { id: 'file-DOC1', name: 'report.pdf', size: 1234 },
    ]);
    const text = textOf(finalMessages(r.snapshots)[1]);
    expect(text).toContain('file-service://file-IMAGE1');
    expect(text).toContain('report.pdf');
  });
});
