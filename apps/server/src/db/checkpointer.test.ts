import { mkdtempSync, rmSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import SQLite from 'better-sqlite3';
import { sql } from 'kysely';
import { afterEach, describe, expect, it } from 'vitest';
import { AUTOCHECKPOINT_PAGES, BACKSTOP_PAGES, startCheckpointer } from './checkpointer';
import { openDb } from './client';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});
function tempDir(): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'cc-checkpoint-'));
  dirs.push(dir);
  return dir;
}

describe('checkpoints on a worker thread', () => {
  it('the connection checkpoints only past the backstop; the worker copies the whole WAL into the file', async () => {
    const dir = tempDir();
    const handle = openDb({
      databaseUrl: path.join(dir, 'db.sqlite'),
      dataDir: dir,
      backgroundCheckpoints: true,
    });
    try {
      const { rows } = await sql<{ wal_autocheckpoint: number }>`pragma wal_autocheckpoint`.execute(
        handle.db,
      );
      expect(rows[0]!.wal_autocheckpoint).toBe(BACKSTOP_PAGES);
      await sql`create table t (id integer primary key, v text)`.execute(handle.db);
      // Well past SQLite's own threshold: with checkpoints at commits, the WAL would have been copied already.
      for (let i = 0; i < 60; i++)
        await sql`insert into t (v) select ${'x'.repeat(4000)} from (select 1 union all select 2 union all select 3
          union all select 4 union all select 5 union all select 6 union all select 7 union all select 8
          union all select 9 union all select 10) as ten, (select 1 union all select 2) as two`.execute(
          handle.db,
        );
      const before = statSync(path.join(dir, 'db.sqlite')).size;
      const result = await handle.checkpoints!.checkpoint();
      expect(result.busy).toBe(0);
      expect(result.log).toBeGreaterThan(AUTOCHECKPOINT_PAGES);
      expect(result.checkpointed).toBe(result.log);
      expect(statSync(path.join(dir, 'db.sqlite')).size).toBeGreaterThan(before + 4_000_000);
    } finally {
      await handle.close();
    }
  });

  it('a worker that fails is reported, and the connection checkpoints at its commits again', async () => {
    const dir = tempDir();
    const connection = new SQLite(path.join(dir, 'db.sqlite'));
    connection.pragma('journal_mode = WAL');
    const failures: Error[] = [];
    // The worker cannot open a file that is not there: it fails as it starts.
    const checkpoints = startCheckpointer(connection, path.join(dir, 'missing.sqlite'), (e) =>
      failures.push(e),
    );
    try {
      // The worker starts with the first checkpoint asked for.
      await expect(checkpoints.checkpoint()).rejects.toThrow();
      expect(failures).toHaveLength(1);
      expect(failures[0]!.message).toMatch(/SQLITE_CANTOPEN|unable to open/);
      expect(connection.pragma('wal_autocheckpoint', { simple: true })).toBe(AUTOCHECKPOINT_PAGES);
      await expect(checkpoints.checkpoint()).rejects.toThrow(/not running/);
    } finally {
      await checkpoints.close();
      connection.close();
    }
  });

  it('under writes that never pause, the WAL still starts again at the backstop instead of growing', async () => {
    const dir = tempDir();
    const file = path.join(dir, 'db.sqlite');
    const connection = new SQLite(file);
    connection.pragma('journal_mode = WAL');
    connection.pragma('synchronous = NORMAL');
    // A worker that never comes round (the timer's next turn is a minute away): only the backstop checkpoints.
    const checkpoints = startCheckpointer(connection, file, () => undefined, {
      everyMs: 60_000,
      backstopPages: 100,
    });
    try {
      connection.exec('create table t (id integer primary key, v text)');
      const insert = connection.prepare('insert into t (v) values (?)');
      // ~2,000 pages, ten pages a commit.
      for (let i = 0; i < 200; i++)
        connection.transaction(() => {
          for (let j = 0; j < 10; j++) insert.run('x'.repeat(4000));
        })();
      const pageSize = connection.pragma('page_size', { simple: true }) as number;
      expect(statSync(`${file}-wal`).size).toBeLessThan(200 * (pageSize + 24));
    } finally {
      await checkpoints.close();
      connection.close();
    }
  });
});
