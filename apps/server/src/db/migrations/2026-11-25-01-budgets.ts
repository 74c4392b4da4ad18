import { sql } from 'kysely';
import type { DialectName } from '../client';
import { realType } from './helpers';
import type { AnyDb } from './helpers';

const MICROS = 1_000_000;

/**
 * Spend budgets in money. `user_settings.credits` (a number of credits, -1 unlimited) becomes `budget_total` in
 * micros (millionths of the configured currency): each credit is kept as one currency unit, so a user with 5
 * credits has a budget of 5 (e.g. USD 5) and -1 stays unlimited; nothing is spent yet. Optional daily and monthly
 * budgets (-1 = none) with what was spent in the period named by `day_key` / `month_key` (UTC; a different key
 * means the period started again and nothing of it is spent). `running_asks` keeps the amount an ask in flight
 * reserved (and the day it was reserved on) instead of a credit flag; `ask_logs.cost` what an ask cost;
 * `user_groups.budgets` the budgets a group gives its members (JSON in currency units; null: none, as before).
 */
export function budgets(dialect: DialectName) {
  const money = dialect === 'postgres' ? 'bigint' : 'integer';
  return {
    async up(db: AnyDb) {
      const settings = () => db.schema.alterTable('user_settings');
      await settings()
        .addColumn('budget_total', money, (c) => c.notNull().defaultTo(-1))
        .execute();
      await settings()
        .addColumn('spent_total', money, (c) => c.notNull().defaultTo(0))
        .execute();
      await settings()
        .addColumn('budget_daily', money, (c) => c.notNull().defaultTo(-1))
        .execute();
      await settings()
        .addColumn('spent_daily', money, (c) => c.notNull().defaultTo(0))
        .execute();
      await settings()
        .addColumn('day_key', 'varchar(10)', (c) => c.notNull().defaultTo(''))
        .execute();
      await settings()
        .addColumn('budget_monthly', money, (c) => c.notNull().defaultTo(-1))
        .execute();
      await settings()
        .addColumn('spent_monthly', money, (c) => c.notNull().defaultTo(0))
        .execute();
      await settings()
        .addColumn('month_key', 'varchar(7)', (c) => c.notNull().defaultTo(''))
        .execute();
      await sql`update user_settings set budget_total =
          case when credits < 0 then -1 else round(credits * ${sql.lit(MICROS)}) end`.execute(db);
      await settings().dropColumn('credits').execute();
      await db.schema
        .alterTable('running_asks')
        .addColumn('reserved', money, (c) => c.notNull().defaultTo(0))
        .execute();
      await db.schema.alterTable('running_asks').addColumn('reserved_day', 'varchar(10)').execute();
      await db.schema.alterTable('running_asks').dropColumn('charged_credits').execute();
      await db.schema.alterTable('ask_logs').addColumn('cost', money).execute();
      await db.schema.alterTable('user_groups').addColumn('budgets', 'text').execute();
    },
    async down(db: AnyDb) {
      await db.schema.alterTable('user_groups').dropColumn('budgets').execute();
      await db.schema.alterTable('ask_logs').dropColumn('cost').execute();
      await db.schema
        .alterTable('running_asks')
        .addColumn('charged_credits', 'integer', (c) => c.notNull().defaultTo(0))
        .execute();
      await db.schema.alterTable('running_asks').dropColumn('reserved_day').execute();
      await db.schema.alterTable('running_asks').dropColumn('reserved').execute();
      await db.schema
        .alterTable('user_settings')
        .addColumn('credits', realType(dialect), (c) => c.notNull().defaultTo(0))
        .execute();
      await sql`update user_settings set credits =
          case when budget_total < 0 then -1 else (budget_total - spent_total) * 1.0 / ${sql.lit(MICROS)} end`.execute(
        db,
      );
      for (const c of [
        'month_key',
        'spent_monthly',
        'budget_monthly',
        'day_key',
        'spent_daily',
        'budget_daily',
        'spent_total',
        'budget_total',
      ])
        await db.schema.alterTable('user_settings').dropColumn(c).execute();
    },
  };
}
