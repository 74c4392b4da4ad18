import { SOURCES } from '@cc/contracts';
import type { ChatSource, ShownChatStatus, UserSetting } from '@cc/contracts';
import { parseTime } from '../../../../lib/format';
import { normalizeCount } from '../../../../lib/quota';
import type { Remaining } from '../../../../lib/quota';

/** What one source allows a user, reduced to what the user table shows. */
export interface SourceLimits {
  source: ChatSource;
  allowed: boolean;
  /** ISO time or null (forever). */
  validUntil: string | null;
  expired: boolean;
  totalAsks: Remaining;
  maxConversations: Remaining;
  /** One entry per available model, in the order of the settings; a missing count is unlimited. */
  perModel: { model: string; remaining: Remaining }[];
  rateLimitCount: number;
  timeSlotCount: number;
}

export function isExpired(validUntil: string | null | undefined, now: number): boolean {
  const date = parseTime(validUntil);
  return !!date && date.getTime() <= now;
}

export function summarizeSource(setting: UserSetting, source: ChatSource, now = Date.now()): SourceLimits {
  const s = setting[source];
  const perModel = s.per_model_ask_count as Partial<Record<string, number>>;
  return {
    source,
    allowed: s.allow_to_use,
    validUntil: s.valid_until,
    expired: isExpired(s.valid_until, now),
    totalAsks: normalizeCount(s.total_ask_count),
    maxConversations: normalizeCount(s.max_conv_count),
    perModel: s.available_models.map((model) => ({ model, remaining: normalizeCount(perModel[model]) })),
    rateLimitCount: s.rate_limits.length,
    timeSlotCount: s.daily_available_time_slots.length,
  };
}

/** Both sources, web first. */
export function summarizeLimits(setting: UserSetting, now = Date.now()): SourceLimits[] {
  return SOURCES.map((source) => summarizeSource(setting, source, now));
}

/**
 * How many asks the user has left over both sources, for sorting: a source not allowed or expired counts 0;
 * otherwise the smaller of the total and the sum over the models (unlimited = Infinity).
 */
export function remainingScore(setting: UserSetting, now = Date.now()): number {
  let score = 0;
  for (const limits of summarizeLimits(setting, now)) {
    if (!limits.allowed || limits.expired) continue;
    const total = limits.totalAsks === 'unlimited' ? Infinity : limits.totalAsks;
    const models = limits.perModel.reduce(
      (sum, m) => sum + (m.remaining === 'unlimited' ? Infinity : m.remaining),
      0,
    );
    score += Math.min(total, models);
  }
  return score;
}

const STATUS_RANK: Record<ShownChatStatus, number> = { asking: 2, queueing: 1, unknown: 0, idling: 0 };

/** Sort order of chat statuses: asking > queueing > idling (or unknown, while Redis is out). */
export function chatStatusRank(status: ShownChatStatus): number {
  return STATUS_RANK[status];
}

/** A count for display: a number, or the given word for unlimited. */
export function formatRemaining(value: Remaining, unlimited: string): string {
  return value === 'unlimited' ? unlimited : String(value);
}
