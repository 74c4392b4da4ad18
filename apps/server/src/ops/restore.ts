import { chmodSync, existsSync, readdirSync, readFileSync } from 'node:fs';
import { copyFile, mkdir, mkdtemp, rename, rm, rmdir, unlink } from 'node:fs/promises';
import path from 'node:path';
import { extract as extractTar } from 'tar';
import { ensurePrivateDir, loadConfig } from '../config/bootstrap';
import { inspectSqliteCopy } from '../db/sqlite-backup';
import type { TableCounts } from '../db/sqlite-backup';
import { BACKUP_FORMAT, BACKUP_VERSION } from './backup';
import type { BackupManifest } from './backup';
import { OpsError, dataPaths, runningServer } from './data-dir';
import type { DataPaths } from './data-dir';

type Env = Record<string, string | undefined>;

export interface RestoreSummary {
  dataDir: string;
  database: string;
  uploads: number;
  counts: TableCounts;
}

const isEmptyDir = (dir: string) => readdirSync(dir).length === 0;

/** Refuses a data directory a server runs on or that holds anything. */
function assertRestorable(dataDir: string): void {
  const pid = runningServer(dataDir);
  if (pid !== null)
    throw new OpsError(
      `A server (process ${pid}) is running on ${dataDir}: stop it, then restore into an empty directory. ` +
        `(If no server runs, the file ${path.join(dataDir, 'server.pid')} is stale.)`,
    );
  if (existsSync(dataDir) && !isEmptyDir(dataDir))
    throw new OpsError(
      `${dataDir} is not empty: restore into an empty or new directory (set CC_DATA_DIR), or move this one aside.`,
    );
}

/** The paths of the restored deployment must not hold a database or uploads already (they may lie outside it). */
function assertFree(paths: DataPaths): void {
  if (existsSync(paths.database!)) throw new OpsError(`${paths.database} exists: it would be overwritten.`);
  if (existsSync(paths.uploads) && !isEmptyDir(paths.uploads))
    throw new OpsError(`${paths.uploads} is not empty: uploads would be mixed.`);
}

function readManifest(staging: string): BackupManifest {
  const file = path.join(staging, 'manifest.json');
  const manifest = existsSync(file)
    ? (JSON.parse(readFileSync(file, 'utf8')) as Partial<BackupManifest>)
    : {};
  if (manifest.format !== BACKUP_FORMAT || manifest.version !== BACKUP_VERSION)
    throw new OpsError('Not a Chat Commons backup (no manifest.json of a known version).');
  if (!existsSync(path.join(staging, 'database.db'))) throw new OpsError('The backup holds no database.');
  return manifest as BackupManifest;
}

/** Moves a file or directory, copying across file systems. */
async function move(from: string, to: string): Promise<void> {
  await mkdir(path.dirname(to), { recursive: true, mode: 0o700 });
  try {
    await rename(from, to);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'EXDEV') throw e;
    await copyFile(from, to);
    await unlink(from);
  }
}

/** Owner-only modes, as the server creates them: directories 0700, files 0600. */
function restrictTree(target: string): void {
  chmodSync(target, 0o700);
  for (const entry of readdirSync(target, { withFileTypes: true, recursive: true })) {
    chmodSync(path.join(entry.parentPath, entry.name), entry.isDirectory() ? 0o700 : 0o600);
  }
}

/** Uploads from the archive into the configured directory (created, or empty: checked before). */
async function placeUploads(staging: string, uploads: string): Promise<number> {
  const from = path.join(staging, 'uploads');
  if (!existsSync(from)) return 0;
  ensurePrivateDir(uploads);
  let count = 0;
  for (const entry of readdirSync(from, { withFileTypes: true, recursive: true })) {
    if (!entry.isFile()) continue;
    const source = path.join(entry.parentPath, entry.name);
    await move(source, path.join(uploads, path.relative(from, source)));
    count += 1;
  }
  restrictTree(uploads);
  return count;
}

/**
 * Restores a backup into an empty (or new) data directory, where the environment points (CC_DATA_DIR): the
 * database, the uploads and the keys, owner-only. Refuses a directory a server runs on or that holds anything,
 * and never overwrites a file. The config file inside the backup is placed first, so that the database and uploads
 * go where the restored server will look for them. On failure, what was written is removed again.
 */
export async function restoreDataDir(env: Env, archive: string): Promise<RestoreSummary> {
  const file = path.resolve(archive);
  if (!existsSync(file)) throw new OpsError(`${file} does not exist.`);
  const { dataDir, dataFiles } = dataPaths(loadConfig(env));
  assertRestorable(dataDir);
  const created = !existsSync(dataDir);
  ensurePrivateDir(dataDir);
  chmodSync(dataDir, 0o700);
  const written: string[] = [];
  try {
    const staging = await mkdtemp(path.join(dataDir, '.restore-'));
    written.push(staging);
    await extractTar({
      file,
      cwd: staging,
      strict: true,
      // Only plain files and folders: no links, devices or paths outside the staging folder.
      filter: (_path, entry) => 'type' in entry && (entry.type === 'File' || entry.type === 'Directory'),
    }).catch((e: unknown) => {
      // Not a (gzipped) tar archive at all: said as a refusal, not with tar's error and a stack.
      throw new OpsError(`${file} is not a Chat Commons backup (${(e as Error).message}).`);
    });
    const manifest = readManifest(staging);
    // Only the files a backup carries (data-dir.ts), whatever else the manifest names.
    for (const name of manifest.data_files.filter((n) => dataFiles.includes(n))) {
      if (!existsSync(path.join(staging, name))) continue;
      await move(path.join(staging, name), path.join(dataDir, name));
      written.push(path.join(dataDir, name));
      chmodSync(path.join(dataDir, name), 0o600);
    }
    const paths = dataPaths(loadConfig(env));
    if (!paths.database)
      throw new OpsError(
        'The restored config names a PostgreSQL database: restore it with pg_restore (README, "Backup and restore").',
      );
    assertFree(paths);
    const counts = inspectSqliteCopy(path.join(staging, 'database.db'));
    await move(path.join(staging, 'database.db'), paths.database);
    written.push(paths.database);
    chmodSync(paths.database, 0o600);
    written.push(paths.uploads);
    const uploads = await placeUploads(staging, paths.uploads);
    await rm(staging, { recursive: true, force: true });
    return { dataDir, database: paths.database, uploads, counts };
  } catch (e) {
    for (const p of written.reverse()) await rm(p, { recursive: true, force: true });
    if (created) await rmdir(dataDir).catch(() => undefined);
    throw e;
  }
}
