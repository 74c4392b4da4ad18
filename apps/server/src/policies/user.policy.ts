import type { UserRow } from '../db/schema';

/** Superusers see and change every user, and read the admin fields of their own record. */
export function isSuperuser(actor: UserRow): boolean {
  return actor.is_superuser === 1;
}
