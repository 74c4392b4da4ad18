import type { BudgetStatus } from './budget';

// The arithmetic of budgets, without zod: the first page of the web app imports it, not the schemas.

/**
 * Money. The API speaks in currency units (a number with at most 6 decimals, e.g. 0.25 = a quarter of a dollar);
 * the database stores integers of a millionth of the unit ("micros"), so sums and comparisons are exact.
 */
export const MICROS_PER_UNIT = 1_000_000;
/** Largest amount: 1e9 currency units (1e15 micros, well inside exact integers in JS, SQLite and bigint). */
export const MAX_MONEY = 1_000_000_000;

/** Currency units → micros; -1 (unlimited / none) stays -1. */
export function toMicros(amount: number): number {
  return amount === -1 ? -1 : Math.round(amount * MICROS_PER_UNIT);
}

/** Micros → currency units; -1 stays -1. */
export function fromMicros(micros: number): number {
  return micros === -1 ? -1 : micros / MICROS_PER_UNIT;
}

export type BudgetKind = 'total' | 'daily' | 'monthly';
export const BUDGET_KINDS: readonly BudgetKind[] = ['total', 'daily', 'monthly'];

/** The budgets at or above the warning share (a spent budget included). */
export function budgetsToWarn(status: BudgetStatus | undefined): BudgetKind[] {
  if (!status) return [];
  return BUDGET_KINDS.filter((k) => {
    const b = status[k];
    return b.limit >= 0 && (b.limit === 0 || b.spent >= status.warn_at * b.limit);
  });
}

/** The smallest amount left over every budget; -1 when none is set. */
export function budgetLeft(status: BudgetStatus | undefined): number {
  if (!status) return -1;
  const lefts = BUDGET_KINDS.map((k) => status[k]).filter((b) => b.limit >= 0);
  return lefts.length === 0 ? -1 : Math.min(...lefts.map((b) => b.left));
}

/**
 * Asks of `model` the budgets still cover: what is left divided by the least an ask of it is reserved at; -1
 * (unlimited) when no budget is set or the model costs nothing.
 */
export function asksCoveredByBudget(status: BudgetStatus | undefined, model: string): number {
  const left = budgetLeft(status);
  const cost = status?.ask_cost[model] ?? 0;
  if (left === -1 || cost <= 0) return -1;
  return Math.floor((left + 1e-9) / cost);
}
