import { z } from 'zod';
import { BudgetStatus } from './budget';
import { ChatSource } from './model-schemas';
import { RowIdParam } from './ids';

const IsoDateTime = z.iso.datetime({ offset: true });

export const USAGE_GROUPS = ['user', 'model', 'day'] as const;
export const UsageGroup = z.enum(USAGE_GROUPS);
export type UsageGroup = z.infer<typeof UsageGroup>;

/** `/api/system/usage` and `.csv`: asks in [start, end) grouped one way, optionally of one user. */
export const UsageQuery = z.object({
  /** Start of the range (inclusive); default: 30 days before `end`. */
  start: IsoDateTime.optional(),
  /** End of the range (exclusive); default: now. */
  end: IsoDateTime.optional(),
  group: UsageGroup.default('user'),
  user_id: RowIdParam.optional(),
});
export type UsageQuery = z.infer<typeof UsageQuery>;

/** One group of asks: by user (user_id, username), by model (source, model) or by UTC day (day). */
export const UsageRow = z.object({
  user_id: z.number().int().nullable(),
  /** null for a deleted user, or when not grouped by user. */
  username: z.string().nullable(),
  source: ChatSource.nullable(),
  model: z.string().nullable(),
  /** YYYY-MM-DD (UTC). */
  day: z.string().nullable(),
  asks: z.number().int(),
  input_tokens: z.number().int(),
  output_tokens: z.number().int(),
  /** Asks whose tokens were counted here because the upstream reported none. */
  estimated_asks: z.number().int(),
  /** Mean seconds in the queue and answering. */
  avg_queue_seconds: z.number(),
  avg_answer_seconds: z.number(),
  /** Asks that ended in an error or a timeout. */
  errors: z.number().int(),
  /** What the asks cost (their tokens at the model's prices, as charged against the budgets), currency units. */
  cost: z.number(),
});
export type UsageRow = z.infer<typeof UsageRow>;

export const UsageReport = z.object({
  start: z.string(),
  end: z.string(),
  group: UsageGroup,
  /** The currency of `cost`. */
  currency: z.string(),
  rows: z.array(UsageRow),
});
export type UsageReport = z.infer<typeof UsageReport>;

/** Remaining asks of one model: the limit that binds (the smaller of the source's total and the model's own). */
export const ModelRemaining = z.object({
  model: z.string(),
  /** -1 = unlimited. */
  remaining: z.number().int(),
});

/** `/api/user/me/usage`: the current calendar month (UTC) and what is left. */
export const MyUsage = z.object({
  /** Start of the period: the first day of this month, 00:00 UTC. */
  period_start: z.string(),
  period_end: z.string(),
  asks: z.number().int(),
  input_tokens: z.number().int(),
  output_tokens: z.number().int(),
  /** What this month's asks cost, currency units. */
  cost: z.number(),
  /** The spend budgets: budget, spent and left per period. */
  budget: BudgetStatus,
  sources: z.array(
    z.object({
      source: ChatSource,
      asks: z.number().int(),
      input_tokens: z.number().int(),
      output_tokens: z.number().int(),
      /** The source's total count; -1 = unlimited. */
      total_remaining: z.number().int(),
      models: z.array(ModelRemaining),
    }),
  ),
});
export type MyUsage = z.infer<typeof MyUsage>;
