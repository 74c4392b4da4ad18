import type { DialectName } from '../client';
import { withId } from './helpers';
import type { AnyDb } from './helpers';

/**
 * Sign-in for teams. `user_identities`: who a user is at an OpenID Connect provider, (issuer, subject) → user, so a
 * changed email at the provider still finds the same account. `invites`: links an admin made that let people
 * create their own account; only a SHA-256 digest of the token is kept, `uses` is counted by a conditional update.
 */
export function signIn(dialect: DialectName) {
  return {
    async up(db: AnyDb) {
      await withId(db.schema.createTable('user_identities'), dialect)
        .addColumn('issuer', 'varchar(512)', (c) => c.notNull())
        .addColumn('subject', 'varchar(255)', (c) => c.notNull())
        .addColumn('user_id', 'integer', (c) => c.notNull().references('users.id').onDelete('cascade'))
        .addColumn('email', 'varchar(254)')
        .addColumn('created_at', 'varchar(32)', (c) => c.notNull())
        .addColumn('last_login_at', 'varchar(32)', (c) => c.notNull())
        .addUniqueConstraint('user_identities_issuer_subject_key', ['issuer', 'subject'])
        .execute();
      await db.schema
        .createIndex('user_identities_user_idx')
        .on('user_identities')
        .column('user_id')
        .execute();
      await withId(db.schema.createTable('invites'), dialect)
        .addColumn('token_hash', 'varchar(64)', (c) => c.notNull().unique())
        .addColumn('expires_at', 'varchar(32)', (c) => c.notNull())
        .addColumn('max_uses', 'integer')
        .addColumn('uses', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('group_id', 'integer', (c) => c.references('user_groups.id').onDelete('set null'))
        .addColumn('created_by', 'integer', (c) => c.references('users.id').onDelete('set null'))
        .addColumn('created_at', 'varchar(32)', (c) => c.notNull())
        .addColumn('revoked_at', 'varchar(32)')
        .execute();
    },
    async down(db: AnyDb) {
      await db.schema.dropTable('invites').execute();
      await db.schema.dropTable('user_identities').execute();
    },
  };
}
