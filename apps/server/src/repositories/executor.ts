import type { Kysely } from 'kysely';
import type { Database } from '../db/schema';

/** A database or an open transaction: every repository method runs on either. */
export type Executor = Kysely<Database>;

export function nowIso(): string {
  return new Date().toISOString();
}

export function bool(v: number): boolean {
  return v === 1;
}

export function int(v: boolean): number {
  return v ? 1 : 0;
}
