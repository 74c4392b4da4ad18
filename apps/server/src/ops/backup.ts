import { createWriteStream, existsSync, readdirSync, statSync } from 'node:fs';
import { copyFile, mkdtemp, rename, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import { create as createTar } from 'tar';
import type { AppConfig } from '../config/bootstrap';
import { backupSqlite, inspectSqliteCopy } from '../db/sqlite-backup';
import type { TableCounts } from '../db/sqlite-backup';
import { OpsError, dataPaths } from './data-dir';

/** What a backup archive starts with: `manifest.json`. */
export const BACKUP_FORMAT = 'chat-commons-backup';
export const BACKUP_VERSION = 1;

/** The archive's manifest: what it holds, and the row counts a restore is checked against. */
export interface BackupManifest {
  format: typeof BACKUP_FORMAT;
  version: typeof BACKUP_VERSION;
  created_at: string;
  /** The SQLite copy inside the archive. */
  database: 'database.db';
  counts: TableCounts;
  /** Files of the data directory inside the archive (beside `database.db` and `uploads/`). */
  data_files: string[];
  /** Uploaded files inside `uploads/`. */
  uploads: number;
}

export interface BackupSummary {
  file: string;
  bytes: number;
  manifest: BackupManifest;
}

/** Regular files under a directory (recursively), 0 when it does not exist. */
function countFiles(dir: string): number {
  if (!existsSync(dir)) return 0;
  return readdirSync(dir, { withFileTypes: true, recursive: true }).filter((e) => e.isFile()).length;
}

/**
 * Writes one `.tar.gz` with a consistent copy of the live SQLite database, the uploads and the keys. The database
 * is copied first: an uploaded file is complete on disk before its row is written, so every file the copy names
 * is there when the uploads are read (files uploaded in between come along unnamed, which is harmless). The
 * archive is written under a temporary name (mode 0600: it holds the keys) and renamed when complete.
 */
export async function backupDataDir(config: AppConfig, file: string): Promise<BackupSummary> {
  const paths = dataPaths(config);
  if (!paths.database)
    throw new OpsError(
      'The database is PostgreSQL: back it up with pg_dump and copy the uploads and keys (README, "Backup and restore").',
    );
  if (paths.database === path.resolve(':memory:') || !existsSync(paths.database))
    throw new OpsError(`No database at ${paths.database}: nothing to back up (is CC_DATA_DIR right?).`);
  const target = path.resolve(file);
  if (existsSync(target)) throw new OpsError(`${target} exists: choose a new file name.`);
  const staging = await mkdtemp(path.join(tmpdir(), 'cc-backup-'));
  const partial = `${target}.partial-${process.pid}`;
  try {
    await backupSqlite(paths.database, path.join(staging, 'database.db'));
    const counts = inspectSqliteCopy(path.join(staging, 'database.db'));
    const dataFiles = paths.dataFiles.filter((name) => existsSync(path.join(paths.dataDir, name)));
    for (const name of dataFiles) await copyFile(path.join(paths.dataDir, name), path.join(staging, name));
    const entries = ['manifest.json', 'database.db', ...dataFiles];
    // The uploads are packed from where they are (a link the archiver follows), never copied first.
    if (existsSync(paths.uploads)) {
      await symlink(paths.uploads, path.join(staging, 'uploads'), 'dir');
      entries.push('uploads');
    }
    const manifest: BackupManifest = {
      format: BACKUP_FORMAT,
      version: BACKUP_VERSION,
      created_at: new Date().toISOString(),
      database: 'database.db',
      counts,
      data_files: dataFiles,
      uploads: countFiles(paths.uploads),
    };
    await writeFile(path.join(staging, 'manifest.json'), JSON.stringify(manifest, null, 2));
    await pipeline(
      createTar({ gzip: true, cwd: staging, portable: true, follow: true }, entries),
      createWriteStream(partial, { flags: 'wx', mode: 0o600 }),
    );
    await rename(partial, target);
    return { file: target, bytes: statSync(target).size, manifest };
  } catch (e) {
    await rm(partial, { force: true });
    throw e;
  } finally {
    await rm(staging, { recursive: true, force: true });
  }
}
