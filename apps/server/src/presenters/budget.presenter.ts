import { costMicros, fromMicros } from '@cc/contracts';
import type { BillingConfig, BudgetPeriod, BudgetStatus } from '@cc/contracts';
import type { BudgetRow } from '../repositories/user-setting.repository';
import { periodKeys } from '../repositories/user-setting.repository';

/** Spent in the current day and month (micros): a stored period that is not the current one counts 0. */
export function spentNow(row: BudgetRow, now: Date): { total: number; daily: number; monthly: number } {
  const keys = periodKeys(now);
  return {
    total: row.spent_total,
    daily: row.day_key === keys.day ? row.spent_daily : 0,
    monthly: row.month_key === keys.month ? row.spent_monthly : 0,
  };
}

/** When the current UTC day and month start again. */
export function periodEnds(now: Date): { day: string; month: string } {
  const y = now.getUTCFullYear();
  const m = now.getUTCMonth();
  return {
    day: new Date(Date.UTC(y, m, now.getUTCDate() + 1)).toISOString(),
    month: new Date(Date.UTC(y, m + 1, 1)).toISOString(),
  };
}

function period(limit: number, spent: number, resetsAt: string | null): BudgetPeriod {
  return {
    limit: fromMicros(limit),
    spent: fromMicros(spent),
    left: limit === -1 ? -1 : fromMicros(Math.max(0, limit - spent)),
    resets_at: resetsAt,
  };
}

/** The user's budgets now, in currency units, with the warning share and the least an ask of each model costs. */
export function presentBudget(row: BudgetRow, billing: BillingConfig, now = new Date()): BudgetStatus {
  const spent = spentNow(row, now);
  const ends = periodEnds(now);
  return {
    currency: billing.currency,
    warn_at: billing.warn_at,
    total: period(row.budget_total, spent.total, null),
    daily: period(row.budget_daily, spent.daily, ends.day),
    monthly: period(row.budget_monthly, spent.monthly, ends.month),
    ask_cost: Object.fromEntries(
      Object.entries(billing.prices).map(([model, price]) => [
        model,
        fromMicros(costMicros(price, 0, billing.reserve_output_tokens)),
      ]),
    ),
  };
}
