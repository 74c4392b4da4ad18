import type { CreateTableBuilder, Kysely } from 'kysely';
import type { DialectName } from '../client';

/** Adds an auto-increment integer primary key `id` in the dialect's own way. */
export function withId<T extends string>(
  table: CreateTableBuilder<T, never>,
  dialect: DialectName,
): CreateTableBuilder<T, 'id'> {
  return dialect === 'postgres'
    ? table.addColumn('id', 'serial', (c) => c.primaryKey())
    : table.addColumn('id', 'integer', (c) => c.primaryKey().autoIncrement());
}

/** Double-precision column type for the dialect. */
export function realType(dialect: DialectName): 'real' | 'double precision' {
  return dialect === 'postgres' ? 'double precision' : 'real';
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- migrations run against the schema as it was then, not today's types
export type AnyDb = Kysely<any>;
