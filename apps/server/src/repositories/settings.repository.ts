import type { Executor } from './executor';
import { nowIso } from './executor';

/** Key/value runtime settings shared by every instance (runtime config, encrypted credentials). */
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
  };
}
