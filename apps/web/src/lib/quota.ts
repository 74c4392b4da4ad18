import type { ChatSource, UserRead } from '@cc/contracts';

/** -1 or missing means unlimited (SPEC §9). */
export type Remaining = number | 'unlimited';

export function normalizeCount(value: number | null | undefined): Remaining {
  return value === undefined || value === null || value < 0 ? 'unlimited' : value;
}

/** Remaining asks of one model for this user. */
export function remainingForModel(user: UserRead | undefined, source: ChatSource, model: string): Remaining {
  const perModel = user?.setting[source].per_model_ask_count as Partial<Record<string, number>> | undefined;
  return normalizeCount(perModel?.[model]);
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
