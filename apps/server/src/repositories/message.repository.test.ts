import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, insertConversation } from '../test/harness';
import type { TestApp } from '../test/harness';
import { messageRepository } from './message.repository';
import type { NewMessageRow } from './message.repository';

let t: TestApp;

beforeAll(async () => {
  t = await createTestApp();
});
afterAll(() => t.close());

async function conversation(): Promise<string> {
  const u = await t.createUser();
  return insertConversation(t.ctx, u.row.id, { source: 'openai_web' });
}

/** An assistant message pointing at the given upstream files (image parts). */
function answer(conversationId: string, id: string, files: string[]): NewMessageRow {
  const parts = [
    ...files.map((f) => ({ content_type: 'image_asset_pointer', asset_pointer: `file-service://${f}` })),
    'text',
  ];
  return {
    id,
    conversation_id: conversationId,
    parent: null,
    role: 'assistant',
    author_name: null,
    model: 'gpt_4o',
    content: JSON.stringify({ content_type: 'multimodal_text', parts }),
    metadata: null,
    text: 'text',
    create_time: new Date().toISOString(),
    seq: 0,
  };
}

const links = (messageId: string) =>
  t.ctx.dbHandle.db
    .selectFrom('message_files')
    .select('file_id')
    .where('message_id', '=', messageId)
    .orderBy('file_id')
    .execute()
    .then((rows) => rows.map((r) => r.file_id));

describe('messageRepository.upsert', () => {
  it('keeps each message’s file links to what it points at now, whether or not the caller knew it had none', async () => {
    const repo = messageRepository(t.ctx.dbHandle.db);
    const conv = await conversation();
    const id = randomUUID();

    // Written without files: reported as stored without links.
    expect(await repo.upsert([answer(conv, id, [])])).toEqual([id]);
    expect(await links(id)).toEqual([]);
    const linkless = new Set([id]);
    // Known linkless, written again without files: still none.
    expect(await repo.upsert([answer(conv, id, [])], linkless)).toEqual([id]);
    expect(await links(id)).toEqual([]);
    // Known linkless, now pointing at files: linked.
    expect(await repo.upsert([answer(conv, id, ['file-a', 'file-b'])], linkless)).toEqual([]);
    expect(await links(id)).toEqual(['file-a', 'file-b']);
    // Linked (not in the set), now pointing at another file only: the old links go.
    expect(await repo.upsert([answer(conv, id, ['file-c'])])).toEqual([]);
    expect(await links(id)).toEqual(['file-c']);
    // Linked, written without files: no link left.
    expect(await repo.upsert([answer(conv, id, [])])).toEqual([id]);
    expect(await links(id)).toEqual([]);
  });
});
