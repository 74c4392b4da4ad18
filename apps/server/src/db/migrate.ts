import { Migrator } from 'kysely';
import type { Migration, MigrationProvider } from 'kysely';
import type { DbHandle } from './client';
import { migrationList } from './migrations';

export type MigrationSource = (dialect: DbHandle['dialect']) => Record<string, Migration>;

function migratorFor(handle: DbHandle, source: MigrationSource = migrationList): Migrator {
  const provider: MigrationProvider = { getMigrations: () => Promise.resolve(source(handle.dialect)) };
  return new Migrator({
    db: handle.db,
    provider,
    migrationTableName: 'cc_migrations',
    migrationLockTableName: 'cc_migrations_lock',
  });
}

export interface MigrationState {
  /** No migration has ever run: a fresh database. */
  fresh: boolean;
  pending: string[];
}

export async function migrationState(handle: DbHandle, source?: MigrationSource): Promise<MigrationState> {
  const all = await migratorFor(handle, source).getMigrations();
  return {
    fresh: all.every((m) => !m.executedAt),
    pending: all.filter((m) => !m.executedAt).map((m) => m.name),
  };
}

/** Applies every pending migration; throws with the failing migration's error. */
export async function migrateToLatest(handle: DbHandle, source?: MigrationSource): Promise<string[]> {
  const { error, results } = await migratorFor(handle, source).migrateToLatest();
  if (error) throw error instanceof Error ? error : new Error(JSON.stringify(error));
  return (results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName);
}

export class PendingMigrationsError extends Error {
  constructor(readonly pending: string[]) {
    super(
      `The database needs ${pending.length} migration(s): ${pending.join(', ')}. ` +
        'Run `npm run db:migrate` (or set data.run_migration: true / CC_RUN_MIGRATION=true) and start again.',
    );
  }
}

/**
 * Boot rule: a fresh database is always created; an existing one is migrated only when `runMigration` is set,
 * otherwise boot stops naming the migrate command.
 */
export async function prepareSchema(
  handle: DbHandle,
  runMigration: boolean,
  source?: MigrationSource,
): Promise<string[]> {
  const state = await migrationState(handle, source);
  if (state.pending.length === 0) return [];
  if (!state.fresh && !runMigration) throw new PendingMigrationsError(state.pending);
  return migrateToLatest(handle, source);
}
