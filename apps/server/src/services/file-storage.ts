import { unlink } from 'node:fs/promises';
import path from 'node:path';
import type { AppContext } from '../app-context';

/** Where local copies of uploaded files live: `<data_dir>/uploads/<storage_name>`. */
export function uploadsDir(ctx: AppContext): string {
  return path.join(ctx.config.data.data_dir, 'uploads');
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
