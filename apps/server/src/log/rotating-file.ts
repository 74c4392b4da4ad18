import { closeSync, existsSync, openSync, renameSync, statSync, unlinkSync, writeSync } from 'node:fs';
import path from 'node:path';
import { ensurePrivateDir, restrictToOwner } from '../config/bootstrap';

export interface RotatingFileOptions {
  file: string;
  /** Rotate when the file would pass this size. */
  maxBytes: number;
  /** Keep `file.1` … `file.N`; 0 = truncate on rotation. */
  backupCount: number;
}

/**
 * A synchronous size-rotating log file (pino destination). The current file is always `file`; the admin log
 * viewer reads it from the tail.
 */
export function rotatingFile(options: RotatingFileOptions) {
  ensurePrivateDir(path.dirname(options.file));
  // Owner-only: log lines carry user names, addresses and upstream errors.
  let fd = openSync(options.file, 'a', 0o600);
  restrictToOwner(options.file);
  let size = existsSync(options.file) ? statSync(options.file).size : 0;

  function rotate(): void {
    closeSync(fd);
    for (let i = options.backupCount - 1; i >= 1; i--) {
      const from = `${options.file}.${i}`;
      if (existsSync(from)) renameSync(from, `${options.file}.${i + 1}`);
    }
    if (options.backupCount > 0) renameSync(options.file, `${options.file}.1`);
    else unlinkSync(options.file);
    fd = openSync(options.file, 'a', 0o600);
    size = 0;
  }

  return {
    write(chunk: string): boolean {
      const bytes = Buffer.byteLength(chunk);
      if (size > 0 && size + bytes > options.maxBytes) rotate();
      writeSync(fd, chunk);
      size += bytes;
      return true;
    },
    end(): void {
      closeSync(fd);
    },
  };
}
