import SQLite from 'better-sqlite3';
import { Kysely, SqliteDialect, sql } from 'kysely';
import { afterEach, describe, expect, it } from 'vitest';
import { reusingStatements } from './client';

interface Db {
  items: { id: number; name: string };
}

const open: SQLite.Database[] = [];
afterEach(() => open.splice(0).forEach((d) => d.open && d.close()));

/** A real in-memory SQLite whose prepares are counted. */
function counted() {
  const raw = new SQLite(':memory:');
  open.push(raw);
  raw.exec('create table items (id integer primary key, name text)');
  const prepared: string[] = [];
  const database = {
    prepare: (text: string) => {
      prepared.push(text);
      return raw.prepare(text);
    },
    close: () => raw.close(),
  };
  return { database, prepared };
}

describe('reused SQLite statements', () => {
  it('prepares each statement once, however often it runs, with the right results each time', async () => {
    const { database, prepared } = counted();
    const db = new Kysely<Db>({ dialect: new SqliteDialect({ database: reusingStatements(database) }) });
    for (let i = 1; i <= 50; i++)
      await db
        .insertInto('items')
        .values({ id: i, name: `n${i}` })
        .execute();
    for (let i = 1; i <= 50; i++) {
      const row = await db.selectFrom('items').selectAll().where('id', '=', i).executeTakeFirst();
      expect(row).toEqual({ id: i, name: `n${i}` });
    }
    // A transaction and a streamed read reuse them too.
    await db.transaction().execute(async (trx) => {
      await trx.updateTable('items').set({ name: 'x' }).where('id', '=', 1).execute();
      await trx.updateTable('items').set({ name: 'y' }).where('id', '=', 2).execute();
    });
    let streamed = 0;
    for await (const _ of db.selectFrom('items').selectAll().stream()) streamed++;
    expect(streamed).toBe(50);
    expect(
      await sql<{ n: number }>`select count(*) as n from items where name in ('x', 'y')`.execute(db),
    ).toEqual({
      rows: [{ n: 2 }],
    });
    const distinct = new Set(prepared);
    expect(prepared.length).toBe(distinct.size);
    await db.destroy();
  });

  it('keeps at most the given number, dropping the least recently used', () => {
    const { database, prepared } = counted();
    const cache = reusingStatements(database, 2);
    cache.prepare('select 1');
    cache.prepare('select 2');
    cache.prepare('select 1'); // now the most recent
    cache.prepare('select 3'); // drops "select 2"
    expect(cache.cached()).toBe(2);
    cache.prepare('select 1');
    cache.prepare('select 2');
    expect(prepared).toEqual(['select 1', 'select 2', 'select 3', 'select 2']);
  });
});
