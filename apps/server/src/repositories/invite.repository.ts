import type { InviteRow } from '../db/schema';
import type { Executor } from './executor';

/** An invite with the names the admin list shows. */
export type InviteListRow = InviteRow & { group_name: string | null; created_by_name: string | null };

/** The `invites` table: links that let people create their own account, found by the digest of their token. */
export function inviteRepository(db: Executor) {
  const listQuery = () =>
    db
      .selectFrom('invites')
      .leftJoin('user_groups', 'user_groups.id', 'invites.group_id')
      .leftJoin('users', 'users.id', 'invites.created_by')
      .selectAll('invites')
      .select(['user_groups.name as group_name', 'users.username as created_by_name']);
  return {
    async insert(row: Omit<InviteRow, 'id' | 'uses'>): Promise<InviteRow> {
      return db.insertInto('invites').values(row).returningAll().executeTakeFirstOrThrow();
    },
    findById(id: number): Promise<InviteListRow | undefined> {
      return listQuery().where('invites.id', '=', id).executeTakeFirst();
    },
    findByTokenHash(tokenHash: string): Promise<InviteRow | undefined> {
      return db.selectFrom('invites').selectAll().where('token_hash', '=', tokenHash).executeTakeFirst();
    },
    list(): Promise<InviteListRow[]> {
      return listQuery().orderBy('invites.created_at', 'desc').orderBy('invites.id', 'desc').execute();
    },
    /**
     * Counts one use if the invite still works at `now` (not revoked, not expired, uses left), in one conditional
     * update: of two parallel uses of the last place, exactly one gets true.
     */
    async claimUse(id: number, now: string): Promise<boolean> {
      const r = await db
        .updateTable('invites')
        .set((eb) => ({ uses: eb('uses', '+', 1) }))
        .where('id', '=', id)
        .where('revoked_at', 'is', null)
        .where('expires_at', '>', now)
        .where((eb) => eb.or([eb('max_uses', 'is', null), eb('uses', '<', eb.ref('max_uses'))]))
        .executeTakeFirst();
      return Number(r.numUpdatedRows) > 0;
    },
    /** Revokes an invite that is not revoked yet; false when it already was. */
    async revoke(id: number, at: string): Promise<boolean> {
      const r = await db
        .updateTable('invites')
        .set({ revoked_at: at })
        .where('id', '=', id)
        .where('revoked_at', 'is', null)
        .executeTakeFirst();
      return Number(r.numUpdatedRows) > 0;
    },
  };
}
