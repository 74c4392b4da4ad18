import type { UserGroupRow } from '../db/schema';
import type { Executor } from './executor';

export interface StoredGroup {
  name: string;
  /** JSON of the web source template. */
  openai_web: string;
  /** JSON of the API source template. */
  openai_api: string;
  /** JSON of the budgets the group gives; null: none. */
  budgets: string | null;
}

/** The `user_groups` table and group membership (`users.group_id`). */
export function groupRepository(db: Executor) {
  return {
    listAll(): Promise<UserGroupRow[]> {
      return db.selectFrom('user_groups').selectAll().orderBy('name').execute();
    },
    findById(id: number): Promise<UserGroupRow | undefined> {
      return db.selectFrom('user_groups').selectAll().where('id', '=', id).executeTakeFirst();
    },
    findByName(name: string): Promise<UserGroupRow | undefined> {
      return db.selectFrom('user_groups').selectAll().where('name', '=', name).executeTakeFirst();
    },
    insert(group: StoredGroup, now: string): Promise<UserGroupRow> {
      return db
        .insertInto('user_groups')
        .values({ ...group, create_time: now, update_time: now })
        .returningAll()
        .executeTakeFirstOrThrow();
    },
    async update(id: number, group: StoredGroup, now: string): Promise<void> {
      await db
        .updateTable('user_groups')
        .set({ ...group, update_time: now })
        .where('id', '=', id)
        .execute();
    },
    /** Deletes the group; its members leave it (also done by the foreign key, stated here for both dialects). */
    async deleteById(id: number): Promise<boolean> {
      await db.updateTable('users').set({ group_id: null }).where('group_id', '=', id).execute();
      const r = await db.deleteFrom('user_groups').where('id', '=', id).executeTakeFirst();
      return Number(r.numDeletedRows) > 0;
    },
    /** Ids of the group's members. */
    async memberIds(id: number): Promise<number[]> {
      const rows = await db
        .selectFrom('users')
        .select('id')
        .where('group_id', '=', id)
        .orderBy('id')
        .execute();
      return rows.map((r) => r.id);
    },
    /** Members per group id. */
    async memberCounts(): Promise<Map<number, number>> {
      const rows = await db
        .selectFrom('users')
        .select((eb) => ['group_id', eb.fn.countAll<number>().as('n')])
        .where('group_id', 'is not', null)
        .groupBy('group_id')
        .execute();
      return new Map(rows.map((r) => [Number(r.group_id), Number(r.n)]));
    },
  };
}
