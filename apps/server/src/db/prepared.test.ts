import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import type { Updateable } from 'kysely';
import { createTestApp } from '../test/harness';
import type { TestApp } from '../test/harness';
import { prepared, preparedRow } from './prepared';
import type { SettingsTable } from './schema';

let t: TestApp;

beforeAll(async () => {
  t = await createTestApp();
});
afterAll(() => t.close());

const byUsername = prepared((db, v: { username: string }) =>
  db.selectFrom('users').select(['id', 'username']).where('username', '=', v.username),
);

const updateSetting = preparedRow((db, v: { key: string }, patch: Updateable<SettingsTable>) =>
  db.updateTable('settings').set(patch).where('key', '=', v.key),
);

describe('prepared queries', () => {
  it('run with new values the SQL and parameters the query builder makes, and return its rows', async () => {
    const db = t.ctx.dbHandle.db;
    const a = await t.createUser({ username: 'prepared_a' });
    const b = await t.createUser({ username: 'prepared_b' });
    for (const user of [a, b]) {
      const built = db
        .selectFrom('users')
        .select(['id', 'username'])
        .where('username', '=', user.row.username)
        .compile();
      const compiled = byUsername.compiled(db, { username: user.row.username });
      expect(compiled.sql).toBe(built.sql);
      expect(compiled.parameters).toEqual(built.parameters);
      expect(await byUsername.rows(db, { username: user.row.username })).toEqual([
        { id: user.row.id, username: user.row.username },
      ]);
    }
    expect(await byUsername.first(db, { username: 'nobody_here' })).toBeUndefined();
  });

  it('make one statement per set of a row’s keys: a key left out (or undefined) leaves its column alone', async () => {
    const db = t.ctx.dbHandle.db;
    await db.insertInto('settings').values({ key: 'prepared.k', value: '1', update_time: 'then' }).execute();
    const read = () =>
      db
        .selectFrom('settings')
        .select(['value', 'update_time'])
        .where('key', '=', 'prepared.k')
        .executeTakeFirst();

    expect(
      await updateSetting.changed(db, { key: 'prepared.k' }, { value: '2', update_time: undefined }),
    ).toBe(1);
    expect(await read()).toEqual({ value: '2', update_time: 'then' });
    expect(await updateSetting.changed(db, { key: 'prepared.k' }, { value: '3', update_time: 'now' })).toBe(
      1,
    );
    expect(await read()).toEqual({ value: '3', update_time: 'now' });
    // The first shape again, with its own statement.
    expect(await updateSetting.changed(db, { key: 'prepared.k' }, { value: '4' })).toBe(1);
    expect(await read()).toEqual({ value: '4', update_time: 'now' });
    expect(await updateSetting.changed(db, { key: 'prepared.none' }, { value: '5' })).toBe(0);
    // A value that is SQL (the row types leave it out; a cast lets it in) goes into the statement.
    const patch = { value: sql<string>`value || '+'` } as unknown as Updateable<SettingsTable>;
    expect(updateSetting.compiled(db, { key: 'prepared.k' }, patch).sql).toContain(`value || '+'`);
    expect(await updateSetting.changed(db, { key: 'prepared.k' }, patch)).toBe(1);
    expect(await read()).toEqual({ value: '4+', update_time: 'now' });
  });

  it('run inside a transaction and roll back with it', async () => {
    const db = t.ctx.dbHandle.db;
    await db
      .insertInto('settings')
      .values({ key: 'prepared.tx', value: 'before', update_time: 't' })
      .execute();
    await expect(
      db.transaction().execute(async (trx) => {
        await updateSetting.run(trx, { key: 'prepared.tx' }, { value: 'inside' });
        const seen = await trx
          .selectFrom('settings')
          .select('value')
          .where('key', '=', 'prepared.tx')
          .execute();
        expect(seen).toEqual([{ value: 'inside' }]);
        throw new Error('roll back');
      }),
    ).rejects.toThrow('roll back');
    const after = await db.selectFrom('settings').select('value').where('key', '=', 'prepared.tx').execute();
    expect(after).toEqual([{ value: 'before' }]);
  });

  it('refuse a build that uses a value other than as a parameter, and a run without a value', async () => {
    const db = t.ctx.dbHandle.db;
    const asText = prepared((db, v: { username: string }) =>
      db.selectFrom('users').select('id').where('username', '=', `${v.username}`),
    );
    await expect(asText.rows(db, { username: 'admin' })).rejects.toThrow(/other than as parameters/);
    const unused = prepared((db, v: { username: string }) => {
      void v.username;
      return db.selectFrom('users').select('id');
    });
    await expect(unused.rows(db, { username: 'admin' })).rejects.toThrow(
      /other than as parameters \(username\)/,
    );
    await expect(byUsername.rows(db, {} as { username: string })).rejects.toThrow(/no value for "username"/);
  });
});
