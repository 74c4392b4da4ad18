import type { FileRow, UserRow } from '../db/schema';

/** An uploaded file is its uploader's; superusers may act on every file. */
export function canAccessFile(actor: UserRow, file: FileRow): boolean {
  return actor.is_superuser === 1 || file.uploader_id === actor.id;
}
