import type { Insertable, Updateable } from 'kysely';
import type { ServerRow, ServersTable } from '../db/schema';
import type { Executor } from './executor';

/** The `servers` table: upstream endpoints per source. */
export function serverRepository(db: Executor) {
  return {
    listBySource(source: string): Promise<ServerRow[]> {
      return db.selectFrom('servers').selectAll().where('source', '=', source).orderBy('id').execute();
    },
    listAll(): Promise<ServerRow[]> {
      return db.selectFrom('servers').selectAll().orderBy('id').execute();
    },
    findById(id: number): Promise<ServerRow | undefined> {
      return db.selectFrom('servers').selectAll().where('id', '=', id).executeTakeFirst();
    },
    insert(row: Insertable<ServersTable>): Promise<ServerRow> {
      return db.insertInto('servers').values(row).returningAll().executeTakeFirstOrThrow();
    },
    update(id: number, patch: Updateable<ServersTable>): Promise<ServerRow | undefined> {
      return db.updateTable('servers').set(patch).where('id', '=', id).returningAll().executeTakeFirst();
    },
    async delete(id: number): Promise<boolean> {
      const r = await db.deleteFrom('servers').where('id', '=', id).executeTakeFirst();
      return Number(r.numDeletedRows) > 0;
    },
  };
}
