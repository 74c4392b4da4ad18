import type { Insertable, Updateable } from 'kysely';
import type { FileRow, FilesTable } from '../db/schema';
import type { Executor } from './executor';

/** The `files` table. */
export function fileRepository(db: Executor) {
  return {
    findById(id: string): Promise<FileRow | undefined> {
      return db.selectFrom('files').selectAll().where('id', '=', id).executeTakeFirst();
    },
    /** Whether this user uploaded the upstream file `openaiWebFileId`. */
    async isUploadedBy(openaiWebFileId: string, uploaderId: number): Promise<boolean> {
      const row = await db
        .selectFrom('files')
        .select('id')
        .where('openai_web_file_id', '=', openaiWebFileId)
        .where('uploader_id', '=', uploaderId)
        .executeTakeFirst();
      return !!row;
    },
    /** Storage names of the local copies this user uploaded. */
    async storageNamesOf(uploaderId: number): Promise<string[]> {
      const rows = await db
        .selectFrom('files')
        .select('storage_name')
        .where('uploader_id', '=', uploaderId)
        .where('storage_name', 'is not', null)
        .execute();
      return rows.flatMap((r) => (r.storage_name ? [r.storage_name] : []));
    },
    insert(row: Insertable<FilesTable>): Promise<FileRow> {
      return db.insertInto('files').values(row).returningAll().executeTakeFirstOrThrow();
    },
    update(id: string, patch: Updateable<FilesTable>): Promise<FileRow | undefined> {
      return db.updateTable('files').set(patch).where('id', '=', id).returningAll().executeTakeFirst();
    },
    async delete(id: string): Promise<void> {
      await db.deleteFrom('files').where('id', '=', id).execute();
    },
  };
}
