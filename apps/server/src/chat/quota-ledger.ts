import { ERROR_DETAILS } from '@cc/contracts';
import type { ChatSource, Config, UserSetting } from '@cc/contracts';
import type { AppContext } from '../app-context';
import { fail } from '../errors/app-error';
import type { Executor } from '../repositories/executor';
import { conversationRepository } from '../repositories/conversation.repository';
import { TOTAL, quotaRepository } from '../repositories/quota.repository';
import { rateEventRepository } from '../repositories/rate-event.repository';
import { sharedCapKey, sharedCapRepository } from '../repositories/shared-cap.repository';
import { userSettingRepository } from '../repositories/user-setting.repository';
import type { SharedCap, SourceAdapter } from '../sources/types';

/** Credits one ask costs (when the user's credits are limited). */
export const CREDITS_PER_ASK = 1;

export interface QuotaCheckInput {
  userId: number;
  setting: UserSetting;
  source: ChatSource;
  model: string;
  newConversation: boolean;
  /** How many attachments and images the ask sends. */
  attachments: number;
  images: number;
  /** The source's own rules: uploads and the cap shared by all users. */
  rules: Pick<SourceAdapter, 'checkUploads' | 'sharedCap'>;
  now?: Date;
}

function capKey(source: ChatSource, cap: SharedCap): string {
  return sharedCapKey(source, cap.modelPrefix);
}

function capSince(cap: SharedCap, now: Date): string {
  return new Date(now.getTime() - cap.windowSeconds * 1000).toISOString();
}

/** Asks taken under the shared cap in its window (admitted ones, finished or still running). */
export function sharedCapUsed(
  db: Executor,
  source: ChatSource,
  cap: SharedCap,
  now = new Date(),
): Promise<number> {
  return sharedCapRepository(db).countSince(capKey(source, cap), capSince(cap, now));
}

function inSlot(now: Date, slots: { start_time: string; end_time: string }[]): boolean {
  if (slots.length === 0) return true;
  const t = now.toISOString().slice(11, 19); // UTC HH:MM:SS
  return slots.some((s) =>
    s.start_time <= s.end_time ? t >= s.start_time && t <= s.end_time : t >= s.start_time || t <= s.end_time,
  );
}

/**
 * Every check before an ask, in the order of the predecessor (reference §2.4) plus rate limits and credits. Throws
 * the exact error of the first check that fails. Reads only; the charge happens in `reserve`.
 */
/** A new conversation of the source is refused once the user holds `max_conv_count` valid ones (-1: no cap). */
export async function checkConversationSlot(
  db: Executor,
  userId: number,
  source: ChatSource,
  setting: UserSetting,
): Promise<void> {
  const max = setting[source].max_conv_count;
  if (max === -1) return;
  if ((await conversationRepository(db).countValid(userId, source)) >= max)
    throw fail.maxConversationCountReached();
}

export async function checkQuota(
  ctx: AppContext,
  input: QuotaCheckInput,
  db: Executor = ctx.dbHandle.db,
): Promise<void> {
  const config: Config = ctx.upstream.effectiveConfig();
  const s = input.setting[input.source];
  const global = config[input.source];
  const now = input.now ?? new Date();
  if (!s.allow_to_use) throw fail.userNotAllowToUseChatType(input.source);
  if (!global.enabled) throw fail.chatTypeNotEnabled(input.source);
  if (s.valid_until && now.getTime() > Date.parse(s.valid_until))
    throw fail.userChatTypeExpired(ERROR_DETAILS.validUntil, { date: s.valid_until });
  if (!inSlot(now, s.daily_available_time_slots)) throw fail.userNotAllowToAskAtThisTime();
  for (const limit of s.rate_limits) {
    const since = new Date(now.getTime() - limit.window_seconds * 1000).toISOString();
    const used = await rateEventRepository(db).countSince(input.userId, input.source, since);
    if (used >= limit.max_requests)
      throw fail.rateLimited(null, { seconds: limit.window_seconds, max: limit.max_requests });
  }
  if (!(s.available_models as string[]).includes(input.model)) throw fail.userNotAllowToUseModel(input.model);
  if (!(global.enabled_models as string[]).includes(input.model)) throw fail.modelNotEnabled(input.model);
  if (s.total_ask_count !== -1 && s.total_ask_count <= 0) throw fail.noAvailableTotalAskCount();
  const perModel = (s.per_model_ask_count as Record<string, number | undefined>)[input.model];
  if (perModel !== undefined && perModel !== -1 && perModel <= 0)
    throw fail.noAvailableModelAskCount(input.model);
  const cap = input.rules.sharedCap(config, input.model);
  if (cap && (await sharedCapUsed(db, input.source, cap, now)) >= cap.limit)
    throw fail.noAvailableGpt4AskCount();
  if (input.newConversation) await checkConversationSlot(db, input.userId, input.source, input.setting);
  input.rules.checkUploads({
    model: input.model,
    attachments: input.attachments,
    images: input.images,
    setting: input.setting,
    config,
  });
  if (input.setting.credits !== -1 && input.setting.credits < CREDITS_PER_ASK)
    throw fail.noAvailableCredits();
}

/** What one ask took: counted asks of the source and model, credits when charged, and its rate event. */
export interface Charge {
  userId: number;
  source: string;
  model: string;
  chargedCredits: boolean;
  rateEventId: number;
  /** The place taken under the shared cap (deleted by a refund), or null. */
  capEventId: number | null;
}

/** A charged ask: settle keeps the charge, refund gives everything back. Each runs at most once. */
export interface Reservation {
  /** What was taken (recorded with the ask in flight, so another instance can refund it). */
  charge: Charge;
  refund(): Promise<void>;
  settle(): void;
}

/** Gives one ask's charge back, inside the caller's transaction. */
export async function refundCharge(trx: Executor, charge: Charge): Promise<void> {
  const quotas = quotaRepository(trx);
  await quotas.increment(charge.userId, charge.source, TOTAL);
  await quotas.increment(charge.userId, charge.source, charge.model);
  if (charge.chargedCredits) await userSettingRepository(trx).giveCredits(charge.userId, CREDITS_PER_ASK);
  await rateEventRepository(trx).delete(charge.rateEventId);
  if (charge.capEventId !== null) await sharedCapRepository(trx).delete(charge.capEventId);
}

/**
 * Charges one ask atomically: total and per-model counters, credits, a rate event and a place under the shared
 * cap, each a conditional UPDATE/INSERT in one transaction. When any of them is exhausted (a concurrent ask took
 * the last one), nothing is charged and the matching error is thrown.
 */
export async function reserve(
  ctx: AppContext,
  userId: number,
  source: ChatSource,
  model: string,
  /** The cap every user of the source shares that this ask counts toward, if any. */
  cap: SharedCap | null = null,
): Promise<Reservation> {
  const { db, dialect } = ctx.dbHandle;
  const state = await db.transaction().execute(async (trx) => {
    const quotas = quotaRepository(trx);
    if (!(await quotas.decrementIfAvailable(userId, source, TOTAL))) throw fail.noAvailableTotalAskCount();
    if (!(await quotas.decrementIfAvailable(userId, source, model)))
      throw fail.noAvailableModelAskCount(model);
    const settings = userSettingRepository(trx);
    const chargedCredits = await settings.takeCreditsIfAvailable(userId, CREDITS_PER_ASK);
    if (!chargedCredits && (await settings.creditsOf(userId)) !== -1) throw fail.noAvailableCredits();
    const now = new Date();
    const rateEventId = await rateEventRepository(trx).insert(userId, source, now.toISOString());
    // Last, after the user's own counters: an ask refused for the user's quota takes no place under the cap.
    let capEventId: number | null = null;
    if (cap) {
      capEventId = await sharedCapRepository(trx).takeIfUnder(dialect, {
        cap: capKey(source, cap),
        since: capSince(cap, now),
        limit: cap.limit,
        time: now.toISOString(),
      });
      if (capEventId === null) throw fail.noAvailableGpt4AskCount();
    }
    return { chargedCredits, rateEventId, capEventId };
  });
  let done = false;
  const charge: Charge = { userId, source, model, ...state };
  return {
    charge,
    settle() {
      done = true;
    },
    async refund() {
      if (done) return;
      done = true;
      await ctx.dbHandle.db.transaction().execute((trx) => refundCharge(trx, charge));
    },
  };
}
