import { ERROR_DETAILS } from '@cc/contracts';
import { costMicros } from '@cc/contracts';
import type { BillingConfig, ChatSource, Config, UserSetting } from '@cc/contracts';
import type { AppContext } from '../app-context';
import { fail } from '../errors/app-error';
import type { Executor } from '../repositories/executor';
import { conversationRepository } from '../repositories/conversation.repository';
import { TOTAL, quotaRepository } from '../repositories/quota.repository';
import { rateEventRepository } from '../repositories/rate-event.repository';
import { sharedCapKey, sharedCapRepository } from '../repositories/shared-cap.repository';
import { budgetRow, periodKeys, userSettingRepository } from '../repositories/user-setting.repository';
import type { BudgetRow } from '../repositories/user-setting.repository';
import { periodEnds, spentNow } from '../presenters/budget.presenter';
import type { TokenUsage } from '../sources/tokens';
import type { SharedCap, SourceAdapter } from '../sources/types';

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
  /** The user's budgets as just read (the caller has the settings row); read here when not given. */
  budgets?: BudgetRow;
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
  await checkBudgets(db, input.userId, now, input.budgets);
}

/** Refuses an ask when a budget is spent (nothing left of it); the exact reservation is checked in `reserve`. */
async function checkBudgets(db: Executor, userId: number, now: Date, known?: BudgetRow): Promise<void> {
  const row = known ?? (await userSettingRepository(db).findByUserId(userId));
  if (!row) return;
  const b = budgetRow(row);
  const spent = spentNow(b, now);
  throwIfSpent(b, spent, now, 0);
}

/**
 * The error of the budget that `amount` more would overrun (with nothing left, for amount 0): the total first (it
 * never starts again), then an ask that could not fit in a whole day's or month's budget (waiting would not help),
 * then the day's and the month's, with when they start again.
 */
function throwIfSpent(
  b: BudgetRow,
  spent: { total: number; daily: number; monthly: number },
  now: Date,
  amount: number,
): void {
  const over = (limit: number, used: number) => limit !== -1 && used + amount >= limit + (amount > 0 ? 1 : 0);
  const larger = (limit: number) => limit !== -1 && amount > limit;
  const ends = periodEnds(now);
  // "2026-11-26 00:00 UTC": the same in every language.
  const shown = (iso: string) => `${iso.slice(0, 10)} ${iso.slice(11, 16)} UTC`;
  if (over(b.budget_total, spent.total)) throw fail.budgetSpent();
  if (larger(b.budget_daily) || larger(b.budget_monthly)) throw fail.askOverBudget();
  if (over(b.budget_daily, spent.daily)) throw fail.dailyBudgetSpent(null, { time: shown(ends.day) });
  if (over(b.budget_monthly, spent.monthly)) throw fail.monthlyBudgetSpent(null, { time: shown(ends.month) });
}

/**
 * What an ask is reserved at, in micros: the input tokens of what it sends (counted with the tokenizer) at the
 * model's input price, plus the configured output allowance at its output price. 0 for a model without a price.
 */
export function estimateAskCost(billing: BillingConfig, model: string, inputTokens: number): number {
  return costMicros(billing.prices[model], inputTokens, billing.reserve_output_tokens);
}

/** The real cost of an ask's tokens, in micros. */
export function askCost(billing: BillingConfig, model: string, usage: TokenUsage): number {
  return costMicros(billing.prices[model], usage.inputTokens, usage.outputTokens);
}

/** What one ask took: counted asks of the source and model, money reserved against the budgets, its rate event. */
export interface Charge {
  userId: number;
  source: string;
  model: string;
  /** Micros reserved against the budgets (0: none). */
  reserved: number;
  /** The UTC day (YYYY-MM-DD) the reservation was made on. */
  reservedDay: string;
  /** The ask's rate event, or null: no rate limit applied (nothing to count it against). */
  rateEventId: number | null;
  /** The place taken under the shared cap (deleted by a refund), or null. */
  capEventId: number | null;
  /**
   * The user had no budget when charged: the settlement adds the cost without reading the budgets first (unless
   * one was set meanwhile). Not recorded with the ask in flight (an interrupted ask is only refunded).
   */
  unbudgeted?: boolean;
}

/** A charged ask: settle keeps the charge, refund gives everything back. Each runs at most once. */
export interface Reservation {
  /** What was taken (recorded with the ask in flight, so another instance can refund it). */
  charge: Charge;
  refund(): Promise<void>;
  /**
   * Keeps the counts and replaces the money reserved by the real cost (micros): what was reserved too much goes
   * back; a cost above the reservation is charged up to what the budgets have left, never below 0. Resolves to
   * the amount charged in the end.
   */
  settle(cost: number): Promise<number>;
}

/** Gives one ask's charge back, inside the caller's transaction. */
export async function refundCharge(trx: Executor, charge: Charge): Promise<void> {
  const quotas = quotaRepository(trx);
  await quotas.increment(charge.userId, charge.source, TOTAL);
  await quotas.increment(charge.userId, charge.source, charge.model);
  await userSettingRepository(trx).releaseBudget(charge.userId, charge.reserved, charge.reservedDay);
  if (charge.rateEventId !== null) await rateEventRepository(trx).delete(charge.rateEventId);
  if (charge.capEventId !== null) await sharedCapRepository(trx).delete(charge.capEventId);
}

/**
 * What the settings read just before the charge says can never refuse it (admission has the row and the counters):
 * those steps of the charge are skipped. A limit an admin sets in the moment between the read and the charge applies
 * from the next ask.
 */
export interface KnownLimits {
  /** The source's total counter is unlimited (-1, or no counter). */
  totalUnlimited: boolean;
  /** The model's counter is unlimited (-1, or no counter). */
  modelUnlimited: boolean;
  /** A rate limit applies to the source: the ask is recorded as a rate event (else nothing counts it). */
  rateLimited: boolean;
  /** A budget is set: the reservation is checked and taken (else there is nothing to reserve against). */
  budgeted: boolean;
}

/** What `reserve` may skip for this user, source and model, from the settings as read. */
export function knownLimits(
  setting: UserSetting,
  source: ChatSource,
  model: string,
  budgets: BudgetRow,
): KnownLimits {
  const s = setting[source];
  const perModel = (s.per_model_ask_count as Record<string, number | undefined>)[model];
  return {
    totalUnlimited: s.total_ask_count === -1,
    modelUnlimited: perModel === undefined || perModel === -1,
    rateLimited: s.rate_limits.length > 0,
    // PostgreSQL reads bigint columns as strings.
    budgeted: [budgets.budget_total, budgets.budget_daily, budgets.budget_monthly].some(
      (limit) => Number(limit) !== -1,
    ),
  };
}

export interface ReserveOptions {
  /** The cap every user of the source shares that this ask counts toward, if any. */
  cap?: SharedCap | null;
  /** Micros to reserve against the budgets (`estimateAskCost`). */
  estimate?: number;
  /** Written in the charge's own transaction (the record of the ask in flight). */
  alongside?: (trx: Executor, charge: Charge) => Promise<void>;
  /** What the settings read said (skips what cannot refuse); absent: every step runs. */
  known?: KnownLimits;
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
  { cap = null, estimate = 0, alongside, known }: ReserveOptions = {},
): Promise<Reservation> {
  const { db, dialect } = ctx.dbHandle;
  const charge = await db.transaction().execute(async (trx): Promise<Charge> => {
    const quotas = quotaRepository(trx);
    if (!known?.totalUnlimited && !(await quotas.decrementIfAvailable(userId, source, TOTAL)))
      throw fail.noAvailableTotalAskCount();
    if (!known?.modelUnlimited && !(await quotas.decrementIfAvailable(userId, source, model)))
      throw fail.noAvailableModelAskCount(model);
    const settings = userSettingRepository(trx);
    const now = new Date();
    const keys = periodKeys(now);
    // Without a budget nothing is reserved (the estimate is 0 then; the settlement adds what was spent).
    const reserving = !known || known.budgeted || estimate > 0;
    if (reserving && !(await settings.reserveBudget(userId, estimate, keys))) {
      const row = await settings.findByUserId(userId);
      if (row) {
        const b = budgetRow(row);
        throwIfSpent(b, spentNow(b, now), now, estimate);
      }
      throw fail.budgetSpent();
    }
    const rateEventId =
      !known || known.rateLimited
        ? await rateEventRepository(trx).insert(userId, source, now.toISOString())
        : null;
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
    const taken: Charge = {
      userId,
      source,
      model,
      reserved: estimate,
      reservedDay: keys.day,
      rateEventId,
      capEventId,
      unbudgeted: known ? !known.budgeted : false,
    };
    await alongside?.(trx, taken);
    return taken;
  });
  let done = false;
  return {
    charge,
    async settle(cost: number) {
      if (done) return charge.reserved;
      done = true;
      return ctx.dbHandle.db.transaction().execute((trx) => settleCharge(trx, charge, cost));
    },
    async refund() {
      if (done) return;
      done = true;
      await ctx.dbHandle.db.transaction().execute((trx) => refundCharge(trx, charge));
    },
  };
}

/**
 * Replaces an ask's reservation by its real cost (micros), inside the caller's transaction: the difference goes
 * back, or (cost above the reservation) is charged up to the room every limited budget has left, with the row
 * locked so that concurrent asks never take the same room twice. Returns what the ask was charged in all.
 */
export async function settleCharge(
  trx: Executor,
  charge: Charge,
  cost: number,
  now = new Date(),
): Promise<number> {
  const settings = userSettingRepository(trx);
  if (cost <= charge.reserved) {
    await settings.releaseBudget(charge.userId, charge.reserved - cost, charge.reservedDay);
    return cost;
  }
  const extraCost = cost - charge.reserved;
  if (
    charge.unbudgeted &&
    (await settings.addSpent(charge.userId, extraCost, periodKeys(now), { unbudgeted: true }))
  )
    return cost;
  const row = await settings.budgetsForUpdate(charge.userId);
  if (!row) return charge.reserved;
  const spent = spentNow(row, now);
  const room = (limit: number, used: number) => (limit === -1 ? Infinity : Math.max(0, limit - used));
  const extra = Math.min(
    extraCost,
    room(row.budget_total, spent.total),
    room(row.budget_daily, spent.daily),
    room(row.budget_monthly, spent.monthly),
  );
  await settings.addSpent(charge.userId, extra, periodKeys(now));
  return charge.reserved + extra;
}
