import type { Executor } from './executor';
import { nowIso } from './executor';

/** Key/value runtime settings shared by every instance (runtime config, encrypted credentials, generated keys). */
export function settingsRepository(db: Executor) {
  return {
    async get(key: string): Promise<string | undefined> {
      const r = await db.selectFrom('settings').select('value').where('key', '=', key).executeTakeFirst();
      return r?.value;
    },
    async put(key: string, value: string): Promise<void> {
      const update_time = nowIso();
      await db
        .insertInto('settings')
        .values({ key, value, update_time })
        .onConflict((oc) => oc.column('key').doUpdateSet({ value, update_time }))
        .execute();
    },
    /** Stores `value` unless the key already has one (the first of several concurrent writers wins). */
    async insertIfAbsent(key: string, value: string): Promise<void> {
      await db
        .insertInto('settings')
        .values({ key, value, update_time: nowIso() })
        .onConflict((oc) => oc.column('key').doNothing())
        .execute();
    },
    /** Replaces the value only while it is still `expected` (a concurrent write is never overwritten). */
    async replaceIf(key: string, expected: string, value: string): Promise<boolean> {
      const r = await db
        .updateTable('settings')
        .set({ value, update_time: nowIso() })
        .where('key', '=', key)
        .where('value', '=', expected)
        .executeTakeFirst();
      return Number(r.numUpdatedRows) > 0;
    },
  };
}
