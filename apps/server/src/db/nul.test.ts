import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ask } from '../test/chat-client';
import { createTestApp } from '../test/harness';
import type { TestApp } from '../test/harness';
import { NUL_REPLACEMENT } from './client';

// PostgreSQL's text cannot hold a NUL character; SQLite's can. Either way the write succeeds and nothing is lost
// but the character itself (shown as U+FFFD on PostgreSQL).
let t: TestApp;
let url: string;
let stored: string;

beforeAll(async () => {
  t = await createTestApp();
  url = await t.app.listen({ host: '127.0.0.1', port: 0 });
  stored = t.ctx.dbHandle.dialect === 'postgres' ? NUL_REPLACEMENT : '\u0000';
});
afterAll(() => t.close());

describe('text holding a NUL character', () => {
  it('a nickname with one is saved, not a 500', async () => {
    const u = await t.createUser();
    const cookie = await t.login(u.row.username, u.password);
    const res = await t.app.inject({
      method: 'PATCH',
      url: '/api/user/me',
      headers: { cookie },
      payload: { nickname: 'Ann\u0000Lee' },
    });
    expect(res.statusCode, res.body).toBe(200);
    const me = await t.app.inject({ url: '/api/user/me', headers: { cookie } });
    expect(me.json<{ result: { nickname: string } }>().result.nickname).toBe(`Ann${stored}Lee`);
  });

  it('a question with one is answered and kept with its conversation', async () => {
    const u = await t.createUser();
    const cookie = await t.login(u.row.username, u.password);
    const r = await ask(
      url,
      { source: 'openai_api', model: 'gpt_3_5', new_conversation: true, text_content: 'first\u0000second' },
      { cookie },
    );
    expect(r.code, JSON.stringify(r.frames.at(-1))).toBe(1000);
    const question = await t.ctx.dbHandle.db
      .selectFrom('messages')
      .innerJoin('conversations', 'conversations.conversation_id', 'messages.conversation_id')
      .select('messages.text')
      .where('conversations.user_id', '=', u.row.id)
      .where('messages.role', '=', 'user')
      .executeTakeFirstOrThrow();
    expect(question.text).toBe(`first${stored}second`);
  });
});
