import type { UserIdentityRow } from '../db/schema';
import type { Executor } from './executor';

/** The `user_identities` table: (issuer, subject) at an OpenID Connect provider → user. */
export function identityRepository(db: Executor) {
  return {
    findBySubject(issuer: string, subject: string): Promise<UserIdentityRow | undefined> {
      return db
        .selectFrom('user_identities')
        .selectAll()
        .where('issuer', '=', issuer)
        .where('subject', '=', subject)
        .executeTakeFirst();
    },
    /** The user's link at this provider, if any (one account is linked to one subject per provider). */
    findByUser(issuer: string, userId: number): Promise<UserIdentityRow | undefined> {
      return db
        .selectFrom('user_identities')
        .selectAll()
        .where('issuer', '=', issuer)
        .where('user_id', '=', userId)
        .executeTakeFirst();
    },
    async insert(row: Omit<UserIdentityRow, 'id'>): Promise<UserIdentityRow> {
      return db.insertInto('user_identities').values(row).returningAll().executeTakeFirstOrThrow();
    },
    async touch(id: number, at: string, email: string | null): Promise<void> {
      await db
        .updateTable('user_identities')
        .set({ last_login_at: at, email })
        .where('id', '=', id)
        .execute();
    },
  };
}
