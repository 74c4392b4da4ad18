import SQLite from 'better-sqlite3';

/** Tables whose rows a backup counts and reports (what an operator checks after a restore). */
const COUNTED_TABLES = ['users', 'conversations', 'messages', 'files'] as const;
export type TableCounts = Partial<Record<(typeof COUNTED_TABLES)[number], number>>;

/**
 * Copies a live SQLite database with the online backup API: the copy is one consistent snapshot, taken while the
 * server goes on reading and writing (WAL). After the first slice the rest goes in one step, so commits of the
 * running server between slices (each of which restarts the copy) cannot keep it from finishing.
 */
export async function backupSqlite(source: string, destination: string): Promise<void> {
  const db = new SQLite(source, { fileMustExist: true });
  try {
    db.pragma('busy_timeout = 5000');
    await db.backup(destination, { progress: ({ totalPages }) => Math.max(totalPages, 100) });
  } finally {
    db.close();
  }
}

/** Checks a copied database (quick_check) and counts its main tables; throws when the copy is damaged. */
export function inspectSqliteCopy(file: string): TableCounts {
  const db = new SQLite(file, { fileMustExist: true, readonly: true });
  try {
    const check = db.pragma('quick_check', { simple: true });
    if (check !== 'ok') throw new Error(`${file}: the database copy is damaged (${String(check)})`);
    const present = new Set(
      (db.prepare(`select name from sqlite_master where type = 'table'`).all() as { name: string }[]).map(
        (r) => r.name,
      ),
    );
    const counts: TableCounts = {};
    for (const table of COUNTED_TABLES) {
      if (present.has(table))
        counts[table] = (db.prepare(`select count(*) as n from ${table}`).get() as { n: number }).n;
    }
    return counts;
  } finally {
    db.close();
  }
}
