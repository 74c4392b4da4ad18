import { sql } from 'kysely';
import type { UserSettingsRow } from '../db/schema';
import type { Executor } from './executor';
import { dialectOf, nowIso } from './executor';
import { prepared } from '../db/prepared';

/** The UTC periods an amount is spent in: `YYYY-MM-DD` and `YYYY-MM`. */
export interface BudgetPeriodKeys {
  day: string;
  month: string;
}

export function periodKeys(now: Date): BudgetPeriodKeys {
  const day = now.toISOString().slice(0, 10);
  return { day, month: day.slice(0, 7) };
}

const BUDGET_COLUMNS = [
  'budget_total',
  'spent_total',
  'budget_daily',
  'spent_daily',
  'day_key',
  'budget_monthly',
  'spent_monthly',
  'month_key',
] as const;

/** The budget columns of a settings row, in micros. */
export type BudgetRow = Pick<UserSettingsRow, (typeof BUDGET_COLUMNS)[number]>;

/** PostgreSQL returns bigint as a string: every amount goes through Number() here. */
export function budgetRow(r: BudgetRow): BudgetRow {
  return {
    budget_total: Number(r.budget_total),
    spent_total: Number(r.spent_total),
    budget_daily: Number(r.budget_daily),
    spent_daily: Number(r.spent_daily),
    day_key: r.day_key,
    budget_monthly: Number(r.budget_monthly),
    spent_monthly: Number(r.spent_monthly),
    month_key: r.month_key,
  };
}

/** What was spent in the period `key` names: the column while it is that period, else 0 (it started again). */
function spentIn(column: 'spent_daily' | 'spent_monthly', keyColumn: 'day_key' | 'month_key', key: string) {
  return sql<number>`(case when ${sql.ref(keyColumn)} = ${key} then ${sql.ref(column)} else 0 end)`;
}

// Every ask reads its user's settings and adds what it cost (db/prepared.ts).
const settingsOfUser = prepared((db, v: { userId: number }) =>
  db.selectFrom('user_settings').selectAll().where('user_id', '=', v.userId),
);

interface SpentValues {
  userId: number;
  amount: number;
  day: string;
  month: string;
}

function addingSpent(db: Executor, v: SpentValues) {
  return db
    .updateTable('user_settings')
    .set({
      spent_total: sql<number>`spent_total + ${v.amount}`,
      spent_daily: sql<number>`${spentIn('spent_daily', 'day_key', v.day)} + ${v.amount}`,
      day_key: v.day,
      spent_monthly: sql<number>`${spentIn('spent_monthly', 'month_key', v.month)} + ${v.amount}`,
      month_key: v.month,
    })
    .where('user_id', '=', v.userId);
}

const addSpent = prepared(addingSpent);
/** Only while no budget limits the user. */
const addSpentUnbudgeted = prepared((db, v: SpentValues) =>
  addingSpent(db, v)
    .where('budget_total', '=', -1)
    .where('budget_daily', '=', -1)
    .where('budget_monthly', '=', -1),
);

export interface StoredSettings {
  /** Total budget in micros, -1 unlimited. */
  budget_total: number;
  /** Daily and monthly budgets in micros, -1 none; absent: unchanged. */
  budget_daily?: number;
  budget_monthly?: number;
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
      if (userIds.length === 1) return settingsOfUser.rows(db, { userId: userIds[0]! });
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
     * Reserves `amount` micros against every budget in one conditional UPDATE: true when taken, false when any
     * limited budget (total, this day's, this month's) would go over. A period whose key is not `period`'s
     * starts again at 0 in the same statement (no timer resets anything).
     */
    async reserveBudget(userId: number, amount: number, period: BudgetPeriodKeys): Promise<boolean> {
      const daily = spentIn('spent_daily', 'day_key', period.day);
      const monthly = spentIn('spent_monthly', 'month_key', period.month);
      const r = await db
        .updateTable('user_settings')
        .set({
          spent_total: sql<number>`spent_total + ${amount}`,
          spent_daily: sql<number>`${daily} + ${amount}`,
          day_key: period.day,
          spent_monthly: sql<number>`${monthly} + ${amount}`,
          month_key: period.month,
        })
        .where('user_id', '=', userId)
        .where(sql<boolean>`(budget_total = -1 or spent_total + ${amount} <= budget_total)`)
        .where(sql<boolean>`(budget_daily = -1 or ${daily} + ${amount} <= budget_daily)`)
        .where(sql<boolean>`(budget_monthly = -1 or ${monthly} + ${amount} <= budget_monthly)`)
        .executeTakeFirst();
      return Number(r.numUpdatedRows) > 0;
    },
    /**
     * Gives back `amount` micros reserved on `day` (YYYY-MM-DD): from the total, and from the day and month only
     * while they are still the current periods (a period that started again owes nothing back). Never below 0.
     */
    async releaseBudget(userId: number, amount: number, day: string): Promise<void> {
      if (amount <= 0) return;
      await db
        .updateTable('user_settings')
        .set({
          spent_total: sql<number>`case when spent_total > ${amount} then spent_total - ${amount} else 0 end`,
          spent_daily: sql<number>`case when day_key <> ${day} then spent_daily
            when spent_daily > ${amount} then spent_daily - ${amount} else 0 end`,
          spent_monthly: sql<number>`case when month_key <> ${day.slice(0, 7)} then spent_monthly
            when spent_monthly > ${amount} then spent_monthly - ${amount} else 0 end`,
        })
        .where('user_id', '=', userId)
        .execute();
    },
    /** The budget columns, the row locked until the transaction ends (PostgreSQL; SQLite transactions serialize). */
    async budgetsForUpdate(userId: number): Promise<BudgetRow | undefined> {
      let q = db.selectFrom('user_settings').select(BUDGET_COLUMNS).where('user_id', '=', userId);
      if (dialectOf(db) === 'postgres') q = q.forUpdate();
      const row = await q.executeTakeFirst();
      return row && budgetRow(row);
    },
    /**
     * Adds `amount` micros to what was spent (the caller checked the room under its row lock); with `unbudgeted`,
     * only while the user has no budget at all (no room to check): false when one is set.
     */
    async addSpent(
      userId: number,
      amount: number,
      period: BudgetPeriodKeys,
      { unbudgeted = false } = {},
    ): Promise<boolean> {
      if (amount <= 0) return true;
      const values = { userId, amount, day: period.day, month: period.month };
      if (!unbudgeted) {
        await addSpent.run(db, values);
        return true;
      }
      return (await addSpentUnbudgeted.changed(db, values)) > 0;
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
