import { describe, expect, it } from 'vitest';
import { freshDatabase } from '../test/harness';
import { openDb } from './client';
import { PendingMigrationsError, prepareSchema } from './migrate';
import { migrationList } from './migrations';
import type { AnyDb } from './migrations/helpers';

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
