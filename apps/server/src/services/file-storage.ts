import { unlink } from 'node:fs/promises';
import path from 'node:path';
import type { AppContext } from '../app-context';

/**
 * Where the server's copies of uploaded files live (`<dir>/<storage_name>`): `data.uploads_dir` when set (one
 * folder every instance mounts), else `<data_dir>/uploads`.
 */
export function uploadsDir(ctx: Pick<AppContext, 'config'>): string {
  return ctx.config.data.uploads_dir ?? path.join(ctx.config.data.data_dir, 'uploads');
}

/** Removes local copies by storage name; a copy that is already gone is not an error. */
export async function removeStoredFiles(ctx: AppContext, storageNames: string[]): Promise<void> {
  const dir = uploadsDir(ctx);
  await Promise.all(
    storageNames.map((name) =>
      unlink(path.join(dir, name)).catch((err: NodeJS.ErrnoException) => {
        if (err.code !== 'ENOENT') ctx.log.warn({ err, name }, 'Could not remove an uploaded file');
      }),
    ),
  );
}
