import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { AppConfig } from '../config/bootstrap';
import { isPostgresUrl, sqliteFile } from '../db/client';
import { uploadsDir } from '../services/file-storage';

/** Where a deployment keeps what a backup carries, as the server resolves it from its bootstrap config. */
export interface DataPaths {
  dataDir: string;
  /** The SQLite file; null when the database is PostgreSQL (backed up with pg_dump instead). */
  database: string | null;
  /** The uploaded files (`data.uploads_dir`, or `<data_dir>/uploads`). */
  uploads: string;
  /** Files of the data directory a backup carries when they exist (names inside `dataDir`). */
  dataFiles: string[];
}

/**
 * What a backup holds besides the database (which keeps the generated keys): an older install's `secrets.json`, the
 * config file, the demo upstream's state and the uploads directory. The one place to change when these move.
 */
export function dataPaths(config: AppConfig): DataPaths {
  const dataDir = config.data.data_dir;
  const url = config.data.database_url;
  return {
    dataDir,
    database: isPostgresUrl(url) ? null : path.resolve(sqliteFile(url, dataDir)),
    uploads: uploadsDir({ config }),
    dataFiles: ['secrets.json', 'config.yaml', 'demo-upstream.json'],
  };
}

/** The file a running server keeps in its data directory, holding its process id. */
export const SERVER_PID_FILE = 'server.pid';

/**
 * Marks the data directory as used by this process (main.ts, once the database is open), so that a restore
 * refuses to write into it. Returns the function that removes the mark (at a graceful stop).
 */
export function markDataDirInUse(dataDir: string): () => void {
  const file = path.join(dataDir, SERVER_PID_FILE);
  writeFileSync(file, `${process.pid}\n`, { mode: 0o600 });
  return () => {
    try {
      if (readFileSync(file, 'utf8').trim() === String(process.pid)) rmSync(file, { force: true });
    } catch {
      // Already gone.
    }
  };
}

/**
 * The process id of a server running on the data directory; null when none is (a stale file is ignored: its process
 * is gone, or on Linux its id now belongs to a process that is not Node).
 */
export function runningServer(dataDir: string): number | null {
  const file = path.join(dataDir, SERVER_PID_FILE);
  if (!existsSync(file)) return null;
  const pid = Number(readFileSync(file, 'utf8').trim());
  if (!Number.isInteger(pid) || pid <= 0) return null;
  try {
    process.kill(pid, 0);
  } catch (e) {
    // EPERM: the process exists but belongs to another user.
    if ((e as NodeJS.ErrnoException).code !== 'EPERM') return null;
  }
  try {
    const command = readFileSync(`/proc/${pid}/cmdline`, 'utf8');
    if (!/node/i.test(command)) return null;
  } catch {
    // No /proc (not Linux) or not readable: the process is taken to be the server.
  }
  return pid;
}

/** A refusal the command-line tools print as it is (no stack): a used directory, a missing file. */
export class OpsError extends Error {
  override name = 'OpsError';
}
