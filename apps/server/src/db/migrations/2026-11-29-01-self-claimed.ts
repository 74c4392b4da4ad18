import { NO_LOCAL_PASSWORD } from '../schema';
import type { AnyDb } from './helpers';

/**
 * `users.self_claimed`: 1 when the account's username or email is the person's own word — an account made through an
 * invite link, an email changed on one's own profile — rather than given by an admin or the identity provider.
 * Single sign-on links a first sign-in only to an account whose identity was given (someone could otherwise put a
 * colleague's email or username on their own account and receive the colleague's sign-in). Accounts already made
 * through invite links with a password are marked (the audit log's `invite.use` entries name them as the actor);
 * other existing accounts keep 0, as admins or the provider made them.
 */
export function selfClaimed() {
  return {
    async up(db: AnyDb) {
      await db.schema
        .alterTable('users')
        .addColumn('self_claimed', 'integer', (c) => c.notNull().defaultTo(0))
        .execute();
      await db
        .updateTable('users')
        .set({ self_claimed: 1 })
        .where('id', 'in', db.selectFrom('audit_logs').select('actor_id').where('action', '=', 'invite.use'))
        .where('hashed_password', '<>', NO_LOCAL_PASSWORD)
        .execute();
    },
    async down(db: AnyDb) {
      await db.schema.alterTable('users').dropColumn('self_claimed').execute();
    },
  };
}
