import type { DialectName } from '../db/client';
import { migrationList } from '../db/migrations';

/** The migrations named before `name`, for a test that stores rows as the schema was before one migration. */
export function migrationsBefore(name: string) {
  return (dialect: DialectName) =>
    Object.fromEntries(Object.entries(migrationList(dialect)).filter(([n]) => n < name));
}

/** The migrations up to and including `name`. */
export function migrationsThrough(name: string) {
  return (dialect: DialectName) =>
    Object.fromEntries(Object.entries(migrationList(dialect)).filter(([n]) => n <= name));
}
