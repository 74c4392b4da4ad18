import { sql } from 'kysely';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { until } from '../test/chat-client';
import { freshDatabase } from '../test/harness';
import { openDb } from './client';
import type { DbHandle } from './client';

const postgres = !!process.env.CC_TEST_DATABASE_URL;

describe.skipIf(!postgres)('a PostgreSQL connection the server ends while it is in use', () => {
  let database: Awaited<ReturnType<typeof freshDatabase>>;
  let handle: DbHandle;
  const errors: Error[] = [];
  beforeAll(async () => {
    database = await freshDatabase();
    handle = openDb({
      databaseUrl: database.url,
      dataDir: database.dataDir,
      onConnectionError: (e) => errors.push(e),
    });
  });
  afterAll(async () => {
    await handle.close();
    await database.drop();
  });

  it('while it is held between two statements: the next statement fails, the process carries on, the pool recovers', async () => {
    const admin = new pg.Client({ connectionString: database.url! });
    await admin.connect();
    try {
      const outcome = await handle.db
        .connection()
        .execute(async (db) => {
          const { rows } = await sql<{ pid: number }>`select pg_backend_pid() as pid`.execute(db);
          // Ended by the server while checked out of the pool and idle (as inside a transaction, between statements).
          await admin.query('select pg_terminate_backend($1)', [rows[0]!.pid]);
          // (An `error` event without a listener ends the process here.)
          await until(() => errors.length > 0);
          await sql`select 1`.execute(db);
          return 'answered';
        })
        .catch((e: unknown) => (e as Error).message);
      expect(outcome).not.toBe('answered');
      const next = await sql<{ one: number }>`select 1 as one`.execute(handle.db);
      expect(next.rows).toEqual([{ one: 1 }]);
    } finally {
      await admin.end();
    }
  });
});
