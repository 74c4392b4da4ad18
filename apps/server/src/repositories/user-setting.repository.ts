import { sql } from 'kysely';
import type { UserSettingsRow } from '../db/schema';
import type { Executor } from './executor';
import { nowIso } from './executor';

export interface StoredSettings {
  credits: number;
  /** JSON of the web source settings without counters. */
  openai_web: string;
  /** JSON of the API source settings without counters. */
  openai_api: string;
}

/** The `user_settings` table (one row per user). */
export function userSettingRepository(db: Executor) {
  return {
    async insert(userId: number, s: StoredSettings): Promise<UserSettingsRow> {
      return db
        .insertInto('user_settings')
        .values({ user_id: userId, update_time: nowIso(), ...s })
        .returningAll()
        .executeTakeFirstOrThrow();
    },
    findByUserId(userId: number): Promise<UserSettingsRow | undefined> {
      return db.selectFrom('user_settings').selectAll().where('user_id', '=', userId).executeTakeFirst();
    },
    async findByUserIds(userIds: number[]): Promise<UserSettingsRow[]> {
      if (userIds.length === 0) return [];
      return db.selectFrom('user_settings').selectAll().where('user_id', 'in', userIds).execute();
    },
    /** A member's own source settings from before joining a group (null: none kept). */
    async setOwnSettings(userId: number, own: string | null): Promise<void> {
      await db
        .updateTable('user_settings')
        .set({ own_settings: own })
        .where('user_id', '=', userId)
        .execute();
    },
    async update(userId: number, s: StoredSettings): Promise<void> {
      await db
        .updateTable('user_settings')
        .set({ ...s, update_time: nowIso() })
        .where('user_id', '=', userId)
        .execute();
    },
    /**
     * Takes `amount` credits when the user has that many: true when taken. False also for unlimited credits (-1):
     * `creditsOf` tells the two apart.
     */
    async takeCreditsIfAvailable(userId: number, amount: number): Promise<boolean> {
      const r = await db
        .updateTable('user_settings')
        .set({ credits: sql<number>`credits - ${amount}` })
        .where('user_id', '=', userId)
        .where('credits', '>=', amount)
        .executeTakeFirst();
      return Number(r.numUpdatedRows) > 0;
    },
    async giveCredits(userId: number, amount: number): Promise<void> {
      await db
        .updateTable('user_settings')
        .set({ credits: sql<number>`credits + ${amount}` })
        .where('user_id', '=', userId)
        .execute();
    },
    async creditsOf(userId: number): Promise<number | null> {
      const row = await db
        .selectFrom('user_settings')
        .select('credits')
        .where('user_id', '=', userId)
        .executeTakeFirst();
      return row?.credits ?? null;
    },
    /** Every user's API source settings JSON (sealed custom keys are sealed again after a key rotation). */
    listApiSettings(): Promise<Pick<UserSettingsRow, 'user_id' | 'openai_api'>[]> {
      return db.selectFrom('user_settings').select(['user_id', 'openai_api']).execute();
    },
    /** Replaces the API source settings only while they are still `expected` (a concurrent edit wins). */
    async replaceApiSettingsIf(userId: number, expected: string, next: string): Promise<boolean> {
      const r = await db
        .updateTable('user_settings')
        .set({ openai_api: next })
        .where('user_id', '=', userId)
        .where('openai_api', '=', expected)
        .executeTakeFirst();
      return Number(r.numUpdatedRows) > 0;
    },
    /** Every user's source settings JSON (the retention task reads the rate-limit windows from them). */
    listSourceSettings(): Promise<Pick<UserSettingsRow, 'openai_web' | 'openai_api'>[]> {
      return db.selectFrom('user_settings').select(['openai_web', 'openai_api']).execute();
    },
  };
}
