import { Migrator, sql } from 'kysely';
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

/**
 * The PostgreSQL advisory lock every instance takes around reading and applying migrations (any fixed number;
 * this one spells "ccmi"). Kysely's own lock covers only the apply step, not the creation of its tables nor our
 * read of the pending list, so instances starting together on an empty database would race there.
 */
export const MIGRATION_LOCK_KEY = 0x63636d69;

/**
 * Runs `fn` while holding the migration lock (PostgreSQL: a session advisory lock on one pooled connection, waited
 * for, released even when `fn` throws). SQLite has one writer per file and runs `fn` as is.
 */
async function withMigrationLock<T>(handle: DbHandle, fn: () => Promise<T>): Promise<T> {
  if (handle.dialect !== 'postgres') return fn();
  return handle.db.connection().execute(async (conn) => {
    await sql`select pg_advisory_lock(${MIGRATION_LOCK_KEY}::bigint)`.execute(conn);
    try {
      return await fn();
    } finally {
      await sql`select pg_advisory_unlock(${MIGRATION_LOCK_KEY}::bigint)`.execute(conn);
    }
  });
}

async function applyPending(handle: DbHandle, source?: MigrationSource): Promise<string[]> {
  const { error, results } = await migratorFor(handle, source).migrateToLatest();
  if (error) throw error instanceof Error ? error : new Error(JSON.stringify(error));
  return (results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName);
}

/** Applies every pending migration under the migration lock; throws with the failing migration's error. */
export async function migrateToLatest(handle: DbHandle, source?: MigrationSource): Promise<string[]> {
  return withMigrationLock(handle, () => applyPending(handle, source));
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
 * otherwise boot stops naming the migrate command. Under the migration lock, so that of several instances
 * starting at once one migrates and the others then find nothing pending.
 */
export async function prepareSchema(
  handle: DbHandle,
  runMigration: boolean,
  source?: MigrationSource,
): Promise<string[]> {
  return withMigrationLock(handle, async () => {
    const state = await migrationState(handle, source);
    if (state.pending.length === 0) return [];
    if (!state.fresh && !runMigration) throw new PendingMigrationsError(state.pending);
    return applyPending(handle, source);
  });
}
