import { z } from 'zod';
import { VALIDATION_MESSAGES as V } from './errors';
import { API_MODELS, WEB_MODELS } from './models';
import { MAX_MONEY, MICROS_PER_UNIT } from './budget-math';

export * from './budget-math';

const hasAtMost6Decimals = (v: number) =>
  Math.abs(v * MICROS_PER_UNIT - Math.round(v * MICROS_PER_UNIT)) < 1e-6;

/** An amount of money ≥ 0 with at most 6 decimals. */
export const Money = z
  .number()
  .min(0)
  .max(MAX_MONEY)
  .refine(hasAtMost6Decimals, { message: V.moneyDecimals });

/** A budget: an amount ≥ 0 with at most 6 decimals, or -1 for none (unlimited). */
export const Budget = z
  .number()
  .min(-1)
  .max(MAX_MONEY)
  .refine((v) => v === -1 || v >= 0, { message: V.budget })
  .refine(hasAtMost6Decimals, { message: V.moneyDecimals });

/** Price of one model in currency units per million tokens. */
export const ModelPrice = z.object({ input: Money, output: Money });
export type ModelPrice = z.infer<typeof ModelPrice>;

/** Product models with a default price (GPT-3.5 and GPT-4 list prices; the web variants cost as their base). */
const MODEL_KEYS = [...new Set<string>([...WEB_MODELS, ...API_MODELS])];
export const DEFAULT_MODEL_PRICES: Record<string, ModelPrice> = Object.fromEntries(
  MODEL_KEYS.map((m) => [m, m.startsWith('gpt_4') ? { input: 30, output: 60 } : { input: 0.5, output: 1.5 }]),
);

/** Cost in micros of an ask's tokens at a price (per million tokens): tokens × price, rounded up. */
export function costMicros(price: ModelPrice | undefined, inputTokens: number, outputTokens: number): number {
  if (!price) return 0;
  return Math.ceil(inputTokens * price.input + outputTokens * price.output - 1e-9);
}

/** One budget as the user sees it, in currency units. */
export const BudgetPeriod = z.object({
  /** The budget, -1 = none. */
  limit: z.number(),
  /** Spent in the current period (total: ever). */
  spent: z.number(),
  /** Left; -1 when there is no budget. */
  left: z.number(),
  /** When the period starts again (UTC); null for the total. */
  resets_at: z.string().nullable(),
});
export type BudgetPeriod = z.infer<typeof BudgetPeriod>;

/** The user's spend budgets now (read only). */
export const BudgetStatus = z.object({
  currency: z.string(),
  /** Share of a budget (0–1) from which the user is warned. */
  warn_at: z.number(),
  total: BudgetPeriod,
  daily: BudgetPeriod,
  monthly: BudgetPeriod,
  /** What an ask of each model is reserved at least (the assumed output only), currency units. */
  ask_cost: z.record(z.string(), z.number()),
});
export type BudgetStatus = z.infer<typeof BudgetStatus>;
