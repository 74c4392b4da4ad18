import { asksCoveredByBudget } from '@cc/contracts';
import type { ChatSource, UserRead } from '@cc/contracts';

/** -1 or missing means unlimited (SPEC §9). */
export type Remaining = number | 'unlimited';

export function normalizeCount(value: number | null | undefined): Remaining {
  return value === undefined || value === null || value < 0 ? 'unlimited' : value;
}

/** The smaller of two limits; unlimited binds only when both are. */
export function minRemaining(a: Remaining, b: Remaining): Remaining {
  if (a === 'unlimited') return b;
  if (b === 'unlimited') return a;
  return Math.min(a, b);
}

/**
 * Asks this user has left with one model: the limit that binds, i.e. the smallest of the source's total count,
 * the model's own count (-1 or a model without a count = unlimited) and the asks the spend budgets still cover
 * (what is left over the least an ask of the model reserves). An ask needs all of them, so a total of 0 means 0
 * whatever the model's count says.
 */
export function remainingForModel(user: UserRead | undefined, source: ChatSource, model: string): Remaining {
  const setting = user?.setting[source];
  const perModel = setting?.per_model_ask_count as Partial<Record<string, number>> | undefined;
  const counts = minRemaining(normalizeCount(setting?.total_ask_count), normalizeCount(perModel?.[model]));
  return minRemaining(counts, normalizeCount(asksCoveredByBudget(user?.setting.budget, model)));
}

/** Models the user may pick for a source, in the order the settings list them. */
export function availableModels(user: UserRead | undefined, source: ChatSource): string[] {
  return user ? [...user.setting[source].available_models] : [];
}

export function canUseSource(user: UserRead | undefined, source: ChatSource): boolean {
  return !!user?.setting[source].allow_to_use;
}

/** The shared web GPT-4 cap (SPEC §9): 50 messages per 3 hours. */
export const WEB_GPT4_CAP_PER_3H = 50;
