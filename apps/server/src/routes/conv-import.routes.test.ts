import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { messageText } from '@cc/contracts';
import type { ConversationHistory } from '@cc/contracts';
import { conversationRepository } from '../repositories/conversation.repository';
import { createTestApp } from '../test/harness';
import type { TestApp } from '../test/harness';

let t: TestApp;
let user: { id: number; cookie: string };

beforeAll(async () => {
  t = await createTestApp();
  const u = await t.createUser();
  user = { id: u.row.id, cookie: await t.login(u.row.username, u.password) };
});
afterAll(() => t.close());

const importDoc = (mapping: Record<string, unknown>, current_node: string | null = null) =>
  t.app.inject({
    method: 'POST',
    url: '/api/conv/import',
    headers: { cookie: user.cookie },
    payload: {
      _id: randomUUID(),
      source: 'openai_web',
      title: 'Imported',
      create_time: null,
      update_time: null,
      current_node,
      current_model: 'gpt_4',
      mapping,
    },
  });

const webMessage = (id: string, role: string, parent: string | null, text: string, extra = {}) => ({
  id,
  source: 'openai_web',
  role,
  parent,
  children: [],
  content: { content_type: 'text', parts: [text] },
  ...extra,
});

const conversationCount = () => conversationRepository(t.ctx.dbHandle.db).countValid(user.id, 'openai_api');

async function history(conversationId: string): Promise<ConversationHistory> {
  const res = await t.app.inject({
    method: 'GET',
    url: `/api/conv/${conversationId}`,
    headers: { cookie: user.cookie },
  });
  expect(res.statusCode, res.body).toBe(200);
  return res.json().result as ConversationHistory;
}

describe('conversation import: the result is a tree', () => {
  it('refuses messages whose parents form a loop, and creates nothing', async () => {
    const before = await conversationCount();
    const loop = await importDoc(
      { a: webMessage('a', 'user', 'b', 'hi'), b: webMessage('b', 'assistant', 'a', 'yo') },
      'b',
    );
    expect(loop.statusCode, loop.body).toBe(422);
    expect(loop.json()).toMatchObject({
      code: 422,
      message: 'errors.invalidParams',
      result: 'errors.detail.importCycle',
    });
    // A loop through a skipped tool step, and a message that is its own parent, are loops too.
    const throughTool = await importDoc({
      q: webMessage('q', 'user', 'tool', 'hi'),
      tool: webMessage('tool', 'tool', 'q', '', { content: null }),
    });
    expect(throughTool.json()).toMatchObject({ code: 422, result: 'errors.detail.importCycle' });
    const self = await importDoc({ q: webMessage('q', 'user', 'q', 'hi') });
    expect(self.json()).toMatchObject({ code: 422, result: 'errors.detail.importCycle' });
    expect(await conversationCount()).toBe(before);
  });

  it('makes a message whose parent is not in the file a root', async () => {
    const res = await importDoc(
      {
        q: webMessage('q', 'user', 'gone', 'question'),
        a: webMessage('a', 'assistant', 'q', 'answer'),
      },
      'a',
    );
    expect(res.statusCode, res.body).toBe(201);
    const h = await history(res.json().result.conversation_id);
    const messages = Object.values(h.mapping);
    const q = messages.find((m) => messageText(m) === 'question')!;
    const a = messages.find((m) => messageText(m) === 'answer')!;
    expect(q.parent).toBeNull();
    expect(a.parent).toBe(q.id);
    expect(h.current_node).toBe(a.id);
  });
});

describe('conversation import: image-only questions', () => {
  it('keeps a question with only an image and a file, so the answer stays under it', async () => {
    const image = {
      content_type: 'image_asset_pointer',
      asset_pointer: 'file-service://file-img1',
      size_bytes: 100,
      width: 10,
      height: 10,
    };
    const res = await importDoc(
      {
        q: webMessage('q', 'user', null, '', {
          content: { content_type: 'multimodal_text', parts: [image, ''] },
          metadata: {
            attachments: [
              { id: 'file-img1', name: 'cat.png', size: 100 },
              { id: 'file-doc', name: 'notes.pdf', size: 5 },
            ],
          },
        }),
        a: webMessage('a', 'assistant', 'q', 'A cat.', { model: 'gpt-4' }),
      },
      'a',
    );
    expect(res.statusCode, res.body).toBe(201);
    const h = await history(res.json().result.conversation_id);
    const messages = Object.values(h.mapping);
    expect(messages).toHaveLength(2);
    const q = messages.find((m) => m.role === 'user')!;
    const a = messages.find((m) => m.role === 'assistant')!;
    expect(messageText(q)).toBe('[image: cat.png]\n[file: notes.pdf]');
    expect(q.parent).toBeNull();
    expect(a.parent).toBe(q.id);

    const md = await t.app.inject({
      method: 'GET',
      url: `/api/conv/${h._id}/export?format=md`,
      headers: { cookie: user.cookie },
    });
    expect(md.body).toBe(
      '# Imported\n\n## User\n\n[image: cat.png]\n[file: notes.pdf]\n\n## Assistant (gpt-4)\n\nA cat.\n',
    );
  });
});

describe('conversation import: nothing to import', () => {
  it('refuses a file of only tool steps or empty questions, and uses no conversation slot', async () => {
    const before = await conversationCount();
    const toolsOnly = await importDoc({
      t1: webMessage('t1', 'tool', null, 'browsing result', { author_name: 'browser' }),
      t2: webMessage('t2', 'tool', 't1', 'more', { author_name: 'browser' }),
    });
    expect(toolsOnly.statusCode, toolsOnly.body).toBe(422);
    expect(toolsOnly.json()).toMatchObject({
      code: 422,
      message: 'errors.invalidParams',
      result: 'errors.detail.importEmpty',
    });
    const emptyQuestion = await importDoc({ q: webMessage('q', 'user', null, '  ') });
    expect(emptyQuestion.json()).toMatchObject({ code: 422, result: 'errors.detail.importEmpty' });
    expect(await conversationCount()).toBe(before);
  });
});
