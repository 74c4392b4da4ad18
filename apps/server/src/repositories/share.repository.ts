import type { Insertable } from 'kysely';
import type { ShareRow, SharesTable } from '../db/schema';
import type { Executor } from './executor';

/** The `shares` table: links to conversation snapshots, found by the digest of their token. */
export function shareRepository(db: Executor) {
  return {
    insert(row: Insertable<SharesTable>): Promise<ShareRow> {
      return db.insertInto('shares').values(row).returningAll().executeTakeFirstOrThrow();
    },
    findById(id: number): Promise<ShareRow | undefined> {
      return db.selectFrom('shares').selectAll().where('id', '=', id).executeTakeFirst();
    },
    /**
     * A link that works: not revoked, its conversation still exists and is valid, and its maker's account is active
     * (a deactivated account's links stop serving, and serve again if it is reactivated).
     */
    findActiveByTokenHash(tokenHash: string): Promise<ShareRow | undefined> {
      return db
        .selectFrom('shares')
        .innerJoin('conversations', 'conversations.conversation_id', 'shares.conversation_id')
        .innerJoin('users', 'users.id', 'shares.user_id')
        .selectAll('shares')
        .where('shares.token_hash', '=', tokenHash)
        .where('shares.revoked_at', 'is', null)
        .where('conversations.is_valid', '=', 1)
        .where('users.is_active', '=', 1)
        .executeTakeFirst();
    },
    /** A user's links, newest first; those of a conversation deleted since are gone with it (they no longer serve). */
    listByUser(userId: number): Promise<ShareRow[]> {
      return db
        .selectFrom('shares')
        .innerJoin('conversations', 'conversations.conversation_id', 'shares.conversation_id')
        .selectAll('shares')
        .where('shares.user_id', '=', userId)
        .where('conversations.is_valid', '=', 1)
        .orderBy('shares.created_at', 'desc')
        .orderBy('shares.id', 'desc')
        .execute();
    },
    listActiveByConversation(conversationId: string): Promise<ShareRow[]> {
      return db
        .selectFrom('shares')
        .selectAll()
        .where('conversation_id', '=', conversationId)
        .where('revoked_at', 'is', null)
        .orderBy('id')
        .execute();
    },
    /** Revokes a link that is not revoked yet; false when it already was. */
    async revoke(id: number, at: string): Promise<boolean> {
      const r = await db
        .updateTable('shares')
        .set({ revoked_at: at })
        .where('id', '=', id)
        .where('revoked_at', 'is', null)
        .executeTakeFirst();
      return Number(r.numUpdatedRows) > 0;
    },
    /** Revokes every working link of a conversation (it was deleted); how many. */
    async revokeByConversation(conversationId: string, at: string): Promise<number> {
      const r = await db
        .updateTable('shares')
        .set({ revoked_at: at })
        .where('conversation_id', '=', conversationId)
        .where('revoked_at', 'is', null)
        .executeTakeFirst();
      return Number(r.numUpdatedRows);
    },
    /** Removes every link of a conversation, with the copies of it they hold (it was destroyed). */
    async deleteByConversation(conversationId: string): Promise<void> {
      await db.deleteFrom('shares').where('conversation_id', '=', conversationId).execute();
    },
    async countActiveByConversation(conversationId: string): Promise<number> {
      const r = await db
        .selectFrom('shares')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .where('conversation_id', '=', conversationId)
        .where('revoked_at', 'is', null)
        .executeTakeFirstOrThrow();
      return Number(r.n);
    },
  };
}
