import { existsSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { messageText } from '@cc/contracts';
import type { AskResponse, ConversationHistory } from '@cc/contracts';
import { DEMO_STATE_FILE } from './context';
import { conversationRepository } from './repositories/conversation.repository';
import { taskRepository } from './repositories/task.repository';
import { SYNC_TASK } from './tasks/builtin';
import { ask, until } from './test/chat-client';
import { freshDatabase, openTestApp } from './test/harness';
import type { TestApp, TestDatabase } from './test/harness';

let database: TestDatabase;

beforeAll(async () => {
  database = await freshDatabase();
});
afterAll(() => database.drop());

describe('demo mode', () => {
  it('keeps the web conversations over a restart: the start-up sync finds them and their history loads', async () => {
    let t: TestApp = await openTestApp(database);
    let conversationId: string;
    let user: { username: string; password: string };
    let answer: string;
    try {
      expect(t.ctx.demo).not.toBeNull();
      const url = await t.app.listen({ host: '127.0.0.1', port: 0 });
      const u = await t.createUser();
      user = { username: u.row.username, password: u.password };
      const r = await ask(
        url,
        {
          source: 'openai_web',
          model: 'gpt_3_5',
          new_conversation: true,
          text_content: 'remember me',
          new_title: 'Before the restart',
        },
        { cookie: await t.login(user.username, user.password) },
      );
      expect(r.code).toBe(1000);
      const last = r.frames
        .filter((f): f is Extract<AskResponse, { type: 'message' }> => f.type === 'message')
        .pop()!;
      conversationId = last.conversation_id;
      answer = messageText(last.message!);
      expect(answer).not.toBe('');
    } finally {
      await t.close();
    }
    expect(existsSync(path.join(database.dataDir, DEMO_STATE_FILE))).toBe(true);

    // The restart: same database, same data directory, the start-up sync on (as main.ts runs it).
    t = await openTestApp(database, {}, undefined, { tasks: { startupSync: true } });
    try {
      const runs = () => taskRepository(t.ctx.dbHandle.db).listRuns(SYNC_TASK, 1);
      await until(async () => (await runs()).length > 0);
      expect((await runs())[0]).toMatchObject({
        trigger: 'startup',
        status: 'success',
        output: expect.stringMatching(/^fetched 1, updated [01], invalidated 0, inserted 0$/),
      });
      expect(await conversationRepository(t.ctx.dbHandle.db).findByUuid(conversationId)).toMatchObject({
        is_valid: 1,
        title: 'Before the restart',
      });

      const res = await t.app.inject({
        url: `/api/conv/${conversationId}`,
        headers: { cookie: await t.login(user.username, user.password) },
      });
      expect(res.statusCode, res.body).toBe(200);
      const history = res.json().result as ConversationHistory;
      const texts = Object.values(history.mapping).map((m) => messageText(m));
      expect(texts).toEqual(expect.arrayContaining(['remember me', answer]));
      expect(messageText(history.mapping[history.current_node!]!)).toBe(answer);
    } finally {
      await t.close();
    }
  });
});
