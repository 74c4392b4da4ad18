import { open } from 'node:fs/promises';
import type { CompletionLog, ServerLogQuery } from '@cc/contracts';
import type { AppContext } from '../app-context';
import { serverLogFile } from '../log/logger';
import { askLogRepository } from '../repositories/ask-log.repository';
import { presentCompletionLog } from '../presenters/system.presenter';

const CHUNK_BYTES = 64 * 1024;
/** A longer line is cut (the log never writes one; this only bounds memory on a foreign file). */
const MAX_LINE_BYTES = 1024 * 1024;
/** Stop scanning after this much, even when the exclude keywords filtered out nearly everything. */
const MAX_SCAN_BYTES = 256 * 1024 * 1024;
/** Rotated files looked at after the current one: `server.log.1` … `server.log.N`. */
const MAX_ROTATED_FILES = 10;

export interface TailResult {
  /** Chronological order (oldest first). */
  lines: string[];
  /** Bytes read from disk. */
  bytesRead: number;
}

/**
 * The last `maxLines` lines of a file that contain none of `exclude`, read backwards in 64 KiB chunks: the cost
 * is the size of the tail, not of the file. Lines are split on the newline byte, so UTF-8 text is never cut.
 */
export async function tailFile(
  file: string,
  maxLines: number,
  exclude: readonly string[] = [],
  budget = { bytes: MAX_SCAN_BYTES },
): Promise<TailResult> {
  const newestFirst: string[] = [];
  let bytesRead = 0;
  let handle;
  try {
    handle = await open(file, 'r');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return { lines: [], bytesRead };
    throw e;
  }
  try {
    let pos = (await handle.stat()).size;
    let carry: Buffer = Buffer.alloc(0);
    const take = (bytes: Buffer) => {
      if (bytes.length === 0) return;
      const line = bytes.toString('utf8').replace(/\r$/, '');
      if (exclude.some((k) => line.includes(k))) return;
      newestFirst.push(line);
    };
    while (pos > 0 && newestFirst.length < maxLines && budget.bytes > 0) {
      const size = Math.min(CHUNK_BYTES, pos);
      pos -= size;
      const chunk = Buffer.allocUnsafe(size);
      const { bytesRead: n } = await handle.read(chunk, 0, size, pos);
      bytesRead += n;
      budget.bytes -= n;
      const data = carry.length ? Buffer.concat([chunk.subarray(0, n), carry]) : chunk.subarray(0, n);
      let end = data.length;
      for (let i = data.length - 1; i >= 0 && newestFirst.length < maxLines; i--) {
        if (data[i] !== 0x0a) continue;
        take(data.subarray(i + 1, end));
        end = i;
      }
      carry = Buffer.from(data.subarray(0, end));
      if (carry.length > MAX_LINE_BYTES) {
        take(carry.subarray(carry.length - MAX_LINE_BYTES));
        carry = Buffer.alloc(0);
      }
    }
    if (pos === 0 && newestFirst.length < maxLines) take(carry);
  } finally {
    await handle.close();
  }
  return { lines: newestFirst.reverse(), bytesRead };
}

/** The server log's last lines: the current file first, then the rotated ones while more lines are wanted. */
export async function serverLogLines(
  ctx: AppContext,
  query: ServerLogQuery,
): Promise<{ lines: string[]; bytesRead: number }> {
  const file = serverLogFile(ctx.config);
  const exclude = query.exclude_keywords ?? [];
  const budget = { bytes: MAX_SCAN_BYTES };
  let lines: string[] = [];
  let bytesRead = 0;
  for (let i = 0; i <= MAX_ROTATED_FILES && lines.length < query.max_lines && budget.bytes > 0; i++) {
    const r = await tailFile(
      i === 0 ? file : `${file}.${i}`,
      query.max_lines - lines.length,
      exclude,
      budget,
    );
    lines = [...r.lines, ...lines];
    bytesRead += r.bytesRead;
  }
  return { lines, bytesRead };
}

/** Ask (completion) logs, newest first, optionally within [start_time, end_time). */
export async function completionLogs(
  ctx: AppContext,
  query: { start_time?: string; end_time?: string; max_results: number },
): Promise<CompletionLog[]> {
  const iso = (t: string | undefined) => (t ? new Date(t).toISOString() : undefined);
  const rows = await askLogRepository(ctx.dbHandle.db).listRecent({
    start: iso(query.start_time),
    end: iso(query.end_time),
    limit: query.max_results,
  });
  return rows.map(presentCompletionLog);
}
