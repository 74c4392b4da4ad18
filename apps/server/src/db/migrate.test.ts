import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { until } from '../test/chat-client';
import { freshDatabase } from '../test/harness';
import { openDb } from './client';
import { MIGRATION_LOCK_KEY, PendingMigrationsError, prepareSchema } from './migrate';
import { migrationList } from './migrations';
import type { AnyDb } from './migrations/helpers';
import { searchRepository } from '../repositories/search.repository';
import { migrationsBefore } from '../test/migrations';

const withExtra = (dialect: 'sqlite' | 'postgres') => ({
  ...migrationList(dialect),
  '2099-01-01-01-extra': {
    up: (db: AnyDb) => db.schema.createTable('extra_probe').addColumn('id', 'integer').execute(),
  },
});
describe('prepareSchema', () => {
  it('creates a fresh database, then refuses pending migrations unless run_migration is set', async () => {
    const database = await freshDatabase();
    const handle = openDb({ databaseUrl: database.url, dataDir: database.dataDir });
    try {
      expect(await prepareSchema(handle, false)).toEqual(Object.keys(migrationList(handle.dialect)));
      expect(await prepareSchema(handle, false)).toEqual([]);
      const err = await prepareSchema(handle, false, withExtra).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(PendingMigrationsError);
      expect((err as Error).message).toContain('npm run db:migrate');
      expect((err as Error).message).toContain('2099-01-01-01-extra');
      expect(await prepareSchema(handle, true, withExtra)).toEqual(['2099-01-01-01-extra']);
    } finally {
      await handle.close();
      await database.drop();
    }
  });
});

describe('2026-11-23-01-message-files', () => {
  it('records the files that stored assistant and tool messages point at, never those of user messages', async () => {
    const database = await freshDatabase();
    const handle = openDb({ databaseUrl: database.url, dataDir: database.dataDir });
    const before = migrationsBefore('2026-11-23-01-message-files');
    try {
      await prepareSchema(handle, true, before);
      // Rows as the schema was before this migration.
      const db = handle.db as unknown as AnyDb;
      const now = new Date().toISOString();
      await db
        .insertInto('conversations')
        .values({ conversation_id: 'c1', source: 'openai_web', create_time: now, update_time: now })
        .execute();
      const message = (id: string, role: string, content: unknown, metadata: unknown = null) => ({
        id,
        conversation_id: 'c1',
        role,
        content: JSON.stringify(content),
        metadata: metadata === null ? null : JSON.stringify(metadata),
        create_time: now,
      });
      const image = (id: string) => ({
        content_type: 'image_asset_pointer',
        asset_pointer: `file-service://${id}`,
      });
      await db
        .insertInto('messages')
        .values([
          message('m1', 'user', {
            content_type: 'multimodal_text',
            parts: [image('file-typed'), 'file-service://file-typed2'],
          }),
          message('m2', 'tool', {
            content_type: 'multimodal_text',
            parts: [image('file-dalle'), image('file-dalle')],
          }),
          message(
            'm3',
            'tool',
            { content_type: 'execution_output', text: 'ok' },
            {
              aggregate_result: {
                messages: [{ message_type: 'image', image_url: 'file-service://file-chart' }],
              },
            },
          ),
          message('m4', 'assistant', { content_type: 'text', parts: ['see file-service://file-text'] }),
          message('m5', 'assistant', { content_type: 'multimodal_text', parts: [image('../etc/passwd')] }),
        ])
        .execute();
      expect((await prepareSchema(handle, true))[0]).toBe('2026-11-23-01-message-files');
      const rows = await handle.db
        .selectFrom('message_files')
        .select(['message_id', 'file_id'])
        .orderBy('message_id')
        .execute();
      expect(rows).toEqual([
        { message_id: 'm2', file_id: 'file-dalle' },
        { message_id: 'm3', file_id: 'file-chart' },
      ]);
      // The rows go with their message.
      await handle.db.deleteFrom('messages').where('id', '=', 'm2').execute();
      expect(await handle.db.selectFrom('message_files').select('file_id').execute()).toEqual([
        { file_id: 'file-chart' },
      ]);
    } finally {
      await handle.close();
      await database.drop();
    }
  });
});

describe('2026-11-23-06-search', () => {
  it('indexes the messages stored before it, and the index follows later writes and removals', async () => {
    const database = await freshDatabase();
    const handle = openDb({ databaseUrl: database.url, dataDir: database.dataDir });
    const before = migrationsBefore('2026-11-23-06-search');
    try {
      await prepareSchema(handle, true, before);
      const db = handle.db as unknown as AnyDb;
      const now = new Date().toISOString();
      const user = await db
        .insertInto('users')
        .values({
          username: 'u',
          nickname: 'u',
          email: 'u@example.com',
          hashed_password: '-',
          is_active: 1,
          is_superuser: 0,
          is_verified: 1,
          create_time: now,
          update_time: now,
        })
        .returning('id')
        .executeTakeFirstOrThrow();
      await db
        .insertInto('conversations')
        .values({
          conversation_id: 'c1',
          source: 'openai_api',
          user_id: user.id,
          create_time: now,
          update_time: now,
        })
        .execute();
      const message = (id: string, role: string, text: string) => ({
        id,
        conversation_id: 'c1',
        role,
        text,
        create_time: now,
      });
      await db
        .insertInto('messages')
        .values([
          message('m1', 'user', '我想去巴黎看看埃菲尔铁塔'),
          message('m2', 'assistant', 'Paris has the Eiffel Tower'),
          message('m3', 'system', 'Eiffel system prompt'),
        ])
        .execute();
      expect((await prepareSchema(handle, true))[0]).toBe('2026-11-23-06-search');

      const search = searchRepository(handle.db);
      const ids = async (q: string) =>
        (await search.messages(user.id, q, 20)).map((r) => r.message_id).sort();
      expect(await ids('eiffel')).toEqual(['m2']);
      expect(await ids('埃菲尔')).toEqual(['m1']);
      expect(await ids('巴黎')).toEqual(['m1']);
      await db
        .insertInto('messages')
        .values(message('m4', 'user', 'And the Eiffel museum?'))
        .execute();
      expect(await ids('eiffel')).toEqual(['m2', 'm4']);
      await db.deleteFrom('messages').where('id', '=', 'm2').execute();
      expect(await ids('eiffel')).toEqual(['m4']);
    } finally {
      await handle.close();
      await database.drop();
    }
  });
});

describe('2026-11-23-10-groups', () => {
  it('leaves every existing user in no group with their settings as they were; deleting a group frees its members', async () => {
    const database = await freshDatabase();
    const handle = openDb({ databaseUrl: database.url, dataDir: database.dataDir });
    const before = migrationsBefore('2026-11-23-10-groups');
    try {
      await prepareSchema(handle, true, before);
      const db = handle.db as unknown as AnyDb;
      const now = new Date().toISOString();
      const user = await db
        .insertInto('users')
        .values({
          username: 'old',
          nickname: 'Old',
          email: 'old@example.com',
          hashed_password: 'x',
          is_active: 1,
          is_superuser: 0,
          is_verified: 0,
          create_time: now,
          update_time: now,
        })
        .returning('id')
        .executeTakeFirstOrThrow();
      const settings = { user_id: user.id, credits: 3, openai_web: '{"a":1}', openai_api: '{"b":2}' };
      await db
        .insertInto('user_settings')
        .values({ ...settings, update_time: now })
        .execute();

      expect(await prepareSchema(handle, true)).toContain('2026-11-23-10-groups');
      const row = await handle.db
        .selectFrom('users')
        .selectAll()
        .where('id', '=', user.id)
        .executeTakeFirstOrThrow();
      expect(row.group_id).toBeNull();
      const stored = await handle.db
        .selectFrom('user_settings')
        .select(['user_id', 'openai_web', 'openai_api', 'own_settings'])
        .executeTakeFirstOrThrow();
      // (The credits became a budget in a later migration: see 2026-11-25-01-budgets.)
      const { credits: _credits, ...kept } = settings;
      expect(stored).toEqual({ ...kept, own_settings: null });

      const group = await handle.db
        .insertInto('user_groups')
        .values({ name: 'G', openai_web: '{}', openai_api: '{}', create_time: now, update_time: now })
        .returning('id')
        .executeTakeFirstOrThrow();
      await handle.db.updateTable('users').set({ group_id: group.id }).where('id', '=', user.id).execute();
      await handle.db.deleteFrom('user_groups').where('id', '=', group.id).execute();
      const freed = await handle.db
        .selectFrom('users')
        .select('group_id')
        .where('id', '=', user.id)
        .executeTakeFirstOrThrow();
      expect(freed.group_id).toBeNull();
    } finally {
      await handle.close();
      await database.drop();
    }
  });
});

describe('2026-11-25-01-budgets', () => {
  it('keeps each credit as one currency unit of the total budget (micros), unlimited stays unlimited', async () => {
    const database = await freshDatabase();
    const handle = openDb({ databaseUrl: database.url, dataDir: database.dataDir });
    const before = migrationsBefore('2026-11-25-01-budgets');
    try {
      await prepareSchema(handle, true, before);
      const db = handle.db as unknown as AnyDb;
      const now = new Date().toISOString();
      const credits = [3, -1, 2.5, 0];
      for (const [i, c] of credits.entries()) {
        const user = await db
          .insertInto('users')
          .values({
            username: `old${i}`,
            nickname: 'Old',
            email: `old${i}@example.com`,
            hashed_password: 'x',
            is_active: 1,
            is_superuser: 0,
            is_verified: 0,
            create_time: now,
            update_time: now,
          })
          .returning('id')
          .executeTakeFirstOrThrow();
        await db
          .insertInto('user_settings')
          .values({ user_id: user.id, credits: c, openai_web: '{}', openai_api: '{}', update_time: now })
          .execute();
      }
      expect(await prepareSchema(handle, true)).toContain('2026-11-25-01-budgets');
      const rows = await handle.db
        .selectFrom('user_settings')
        .select(['budget_total', 'spent_total', 'budget_daily', 'budget_monthly'])
        .orderBy('user_id')
        .execute();
      expect(
        rows.map((r) => [r.budget_total, r.spent_total, r.budget_daily, r.budget_monthly].map(Number)),
      ).toEqual([
        [3_000_000, 0, -1, -1],
        [-1, 0, -1, -1],
        [2_500_000, 0, -1, -1],
        [0, 0, -1, -1],
      ]);
    } finally {
      await handle.close();
      await database.drop();
    }
  });
});

/** Sessions of this database waiting for an advisory lock. */
const WAITING_ADVISORY_LOCKS =
  "select count(*)::int as n from pg_locks where locktype = 'advisory' and not granted " +
  'and database = (select oid from pg_database where datname = current_database())';

describe('2026-11-29-01-self-claimed', () => {
  it('marks the accounts made through invite links with a password as self-claimed, no other', async () => {
    const database = await freshDatabase();
    const handle = openDb({ databaseUrl: database.url, dataDir: database.dataDir });
    try {
      await prepareSchema(handle, true, migrationsBefore('2026-11-29-01-self-claimed'));
      const db = handle.db as unknown as AnyDb;
      const now = new Date().toISOString();
      const user = async (username: string, hashed = 'x') =>
        (
          await db
            .insertInto('users')
            .values({
              username,
              nickname: username,
              email: `${username}@example.com`,
              hashed_password: hashed,
              is_active: 1,
              is_superuser: 0,
              is_verified: 0,
              create_time: now,
              update_time: now,
            })
            .returning('id')
            .executeTakeFirstOrThrow()
        ).id as number;
      const invited = await user('invited');
      const bySso = await user('by-sso', '!no-local-password');
      const made = await user('made');
      for (const [actor, via] of [
        [invited, 'password'],
        [bySso, 'sso'],
      ] as const)
        await db
          .insertInto('audit_logs')
          .values({
            time: now,
            actor_id: actor,
            actor_name: String(actor),
            action: 'invite.use',
            target_type: 'invite',
            target_id: '1',
            changes: JSON.stringify({ via: [null, via] }),
            outcome: 'success',
          })
          .execute();

      expect(await prepareSchema(handle, true)).toContain('2026-11-29-01-self-claimed');
      const rows = await handle.db.selectFrom('users').select(['id', 'self_claimed']).orderBy('id').execute();
      expect(rows).toEqual([
        { id: invited, self_claimed: 1 },
        { id: bySso, self_claimed: 0 },
        { id: made, self_claimed: 0 },
      ]);
    } finally {
      await handle.close();
      await database.drop();
    }
  });
});

describe('2026-11-29-02-running-asks-answered', () => {
  it('drops the column nothing reads and keeps the asks in flight', async () => {
    const database = await freshDatabase();
    const handle = openDb({ databaseUrl: database.url, dataDir: database.dataDir });
    try {
      await prepareSchema(handle, true, migrationsBefore('2026-11-29-02-running-asks-answered'));
      const db = handle.db as unknown as AnyDb;
      const now = new Date().toISOString();
      await db
        .insertInto('running_asks')
        .values({
          ask_id: 'a1',
          instance_id: 'i1',
          user_id: 1,
          source: 'openai_api',
          model: 'gpt-4o',
          conversation_id: 'c1',
          answered: 1,
          started_at: now,
          heartbeat_at: now,
        })
        .execute();

      expect(await prepareSchema(handle, true)).toContain('2026-11-29-02-running-asks-answered');
      const table = (await handle.db.introspection.getTables()).find((t) => t.name === 'running_asks')!;
      expect(table.columns.map((c) => c.name)).not.toContain('answered');
      const rows = await handle.db.selectFrom('running_asks').select(['ask_id', 'conversation_id']).execute();
      expect(rows).toEqual([{ ask_id: 'a1', conversation_id: 'c1' }]);
    } finally {
      await handle.close();
      await database.drop();
    }
  });
});

describe.runIf(!!process.env.CC_TEST_DATABASE_URL)('prepareSchema on PostgreSQL', () => {
  it('waits for the migration lock another instance holds before reading or applying migrations', async () => {
    const database = await freshDatabase();
    const handle = openDb({ databaseUrl: database.url, dataDir: database.dataDir });
    const other = new pg.Client({ connectionString: database.url! });
    await other.connect();
    try {
      await other.query('select pg_advisory_lock($1::bigint)', [MIGRATION_LOCK_KEY]);
      let settled = false;
      const preparing = prepareSchema(handle, false).finally(() => (settled = true));
      preparing.catch(() => undefined);
      // Either it queues behind the lock (a waiting advisory lock shows up) or, without the lock, it just runs.
      await until(
        async () => settled || (await other.query<{ n: number }>(WAITING_ADVISORY_LOCKS)).rows[0]!.n > 0,
      );
      expect(settled).toBe(false);
      await other.query('select pg_advisory_unlock($1::bigint)', [MIGRATION_LOCK_KEY]);
      expect(await preparing).toEqual(Object.keys(migrationList(handle.dialect)));
    } finally {
      await other.end();
      await handle.close();
      await database.drop();
    }
  });
});
