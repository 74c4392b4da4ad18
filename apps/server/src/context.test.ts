import { existsSync } from 'node:fs';
import path from 'node:path';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { messageText } from '@cc/contracts';
import type { AskResponse, ConversationHistory } from '@cc/contracts';
import type { AppContext } from './app-context';
import { loadConfig } from './config/bootstrap';
import { DEMO_STATE_FILE, closeContext, createContext } from './context';
import { conversationRepository } from './repositories/conversation.repository';
import { taskRepository } from './repositories/task.repository';
import { SYNC_TASK } from './tasks/builtin';
import { ask, until } from './test/chat-client';
import { ADMIN, freshDatabase, openTestApp } from './test/harness';
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

describe.runIf(!!process.env.CC_TEST_DATABASE_URL)('several instances starting at once', () => {
  // run_migration false is the default: a fresh database is created anyway, and the others must not mistake a
  // half-migrated database (another instance is creating it) for an old one that needs `npm run db:migrate`.
  it.each([true, false])(
    'on an empty PostgreSQL database all come up (run_migration %s), one admin',
    async (runMigration) => {
      const empty = await freshDatabase();
      const config = loadConfig(
        { CC_DATA_DIR: empty.dataDir },
        {
          overrides: {
            data: { database_url: empty.url, run_migration: runMigration, redis_url: null },
            common: {
              initial_admin_user_username: ADMIN.username,
              initial_admin_user_password: ADMIN.password,
            },
          },
        },
      );
      const log = pino({ level: process.env.CC_TEST_LOG ?? 'silent' });
      const started = await Promise.allSettled(
        [1, 2, 3].map(() => createContext(config, log, { demo: false })),
      );
      const contexts = started.flatMap((r) => (r.status === 'fulfilled' ? [r.value] : []));
      try {
        expect(started.filter((r) => r.status === 'rejected')).toEqual([]);
        const admins = await contexts[0]!.dbHandle.db
          .selectFrom('users')
          .select(['id', 'is_superuser'])
          .where('username', '=', ADMIN.username)
          .execute();
        expect(admins).toEqual([{ id: admins[0]!.id, is_superuser: 1 }]);
      } finally {
        await Promise.all(contexts.map((c: AppContext) => closeContext(c)));
        await empty.drop();
      }
    },
  );
});
