import { SOURCES } from '@cc/contracts';
import type { ChatSource, UserSetting } from '@cc/contracts';
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
