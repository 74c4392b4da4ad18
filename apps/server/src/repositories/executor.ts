import { PostgresAdapter } from 'kysely';
import type { Kysely } from 'kysely';
import type { DialectName } from '../db/client';
import type { Database } from '../db/schema';

/** A database or an open transaction: every repository method runs on either. */
export type Executor = Kysely<Database>;

/** What a batch writer needs of the database: transactions (a test can wrap or fail them). */
export interface Transactional {
  transaction(): { execute<T>(fn: (trx: Executor) => Promise<T>): Promise<T> };
}

export function nowIso(): string {
  return new Date().toISOString();
}

export function bool(v: number): boolean {
  return v === 1;
}

export function int(v: boolean): number {
  return v ? 1 : 0;
}

/** The dialect an executor speaks (for the few queries that differ between SQLite and PostgreSQL). */
export function dialectOf(db: Executor): DialectName {
  return db.getExecutor().adapter instanceof PostgresAdapter ? 'postgres' : 'sqlite';
}

/** A LIKE pattern for "contains `text`": `%`, `_` and `\` match themselves (use with `escape '\'`). */
export function containsPattern(text: string): string {
  return `%${text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}
