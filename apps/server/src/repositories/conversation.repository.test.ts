import { CompiledQuery } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN, createTestApp, insertConversation, sqlRecorder } from '../test/harness';
import type { TestApp } from '../test/harness';

let t: TestApp;
/** Every statement the app ran, in order (SQL printing at debug level). */
let statements: string[];

beforeAll(async () => {
  const recorder = sqlRecorder();
  statements = recorder.statements;
  t = await createTestApp({ common: { print_sql: true } }, undefined, { log: recorder.log });
});
afterAll(() => t.close());

/** The plan of a statement with its parameters: SQLite's steps, or PostgreSQL's node types, as text. */
async function plan(statement: string, parameters: unknown[]): Promise<string> {
  const db = t.ctx.dbHandle.db;
  if (t.ctx.dbHandle.dialect === 'sqlite') {
    const rows = await db.executeQuery<{ detail: string }>(
      CompiledQuery.raw(`explain query plan ${statement}`, parameters),
    );
    return rows.rows.map((r) => r.detail).join('\n');
  }
  // A table this small is sorted faster than read through an index: forbid the sort (it stays in the plan, only
  // costed higher, when no index gives the order) so that the plan shows whether one does.
  return db.transaction().execute(async (trx) => {
    await trx.executeQuery(CompiledQuery.raw('set local enable_sort = off'));
    const rows = await trx.executeQuery<{ 'QUERY PLAN': unknown }>(
      CompiledQuery.raw(`explain (format json) ${statement}`, parameters),
    );
    return JSON.stringify(rows.rows[0]!['QUERY PLAN']);
  });
}

describe('the admin conversation list sorted by title', () => {
  it('reads a page in the order of an index, without sorting every conversation', async () => {
    const user = await t.createUser();
    for (let i = 0; i < 60; i++) {
      await insertConversation(t.ctx, user.row.id, { title: i % 7 === 0 ? null : `Title ${(i * 37) % 60}` });
    }
    const cookie = await t.login(ADMIN.username, ADMIN.password);
    for (const order of ['asc', 'desc']) {
      statements.length = 0;
      const res = await t.app.inject({
        method: 'GET',
        url: `/api/conv/all?limit=20&offset=10&sort=title&order=${order}`,
        headers: { cookie },
      });
      expect(res.statusCode, res.body).toBe(200);
      const page = statements.find((s) => /^select .* from "conversations" .*order by lower/i.test(s));
      expect(page, statements.join('\n')).toBeDefined();
      const steps = await plan(page!, [20, 10]);
      expect(steps).toContain('conversations_title_order_idx');
      expect(steps).not.toContain(t.ctx.dbHandle.dialect === 'sqlite' ? 'TEMP B-TREE' : '"Sort"');
    }
  });
});
