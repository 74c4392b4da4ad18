import type { CommonStatus, ShownChatStatus } from '@cc/contracts';
import type { AppContext } from '../app-context';
import { sharedCapKey, sharedCapRepository } from '../repositories/shared-cap.repository';
import { userRepository } from '../repositories/user.repository';

const CACHE_MS = 5_000;
let cached: { at: number; ctx: AppContext; value: CommonStatus } | null = null;

/**
 * What every user may see: active users (non-superusers) in 5 min / 1 h / 1 day, whether the web source is
 * saturated, how many asks wait, and the shared web GPT-4 use in the last 3 hours (the asks the cap admitted, as
 * the cap counts them). Counts run on indexed columns.
 */
export async function commonStatus(ctx: AppContext): Promise<CommonStatus> {
  if (cached && cached.ctx === ctx && Date.now() - cached.at < CACHE_MS) return cached.value;
  const db = ctx.dbHandle.db;
  const now = Date.now();
  const since = (ms: number) => new Date(now - ms).toISOString();
  await ctx.activity.flush();
  const [m5 = 0, h1 = 0, d1 = 0] = await userRepository(db).countActiveNonSuperusersSince([
    since(5 * 60_000),
    since(3600_000),
    since(86_400_000),
  ]);
  const queue = await queueStatus(ctx);
  const value: CommonStatus = {
    active_user_in_5m: m5,
    active_user_in_1h: h1,
    active_user_in_1d: d1,
    ...queue,
    gpt4_count_in_3_hours: await sharedCapRepository(db).countSince(
      sharedCapKey('openai_web', 'gpt_4'),
      since(3 * 3600_000),
    ),
  };
  cached = { at: now, ctx, value };
  return value;
}

/** The shared queue's state; while Redis does not answer, "not busy, nobody waiting" (the page still loads). */
async function queueStatus(
  ctx: AppContext,
): Promise<Pick<CommonStatus, 'is_chatbot_busy' | 'chatbot_waiting_count'>> {
  try {
    return {
      is_chatbot_busy: await ctx.scheduler.isBusy('openai_web'),
      chatbot_waiting_count:
        (await ctx.scheduler.snapshot('openai_web')).waiting +
        (await ctx.scheduler.snapshot('openai_api')).waiting,
    };
  } catch (err) {
    ctx.log.warn({ err }, 'queue status unavailable');
    return { is_chatbot_busy: false, chatbot_waiting_count: 0 };
  }
}

/** A user's chat status; `unknown` while Redis does not answer (the page still loads). */
export async function shownChatStatus(ctx: AppContext, userId: number): Promise<ShownChatStatus> {
  try {
    return (await ctx.coordination.chatStatus.get(userId)) ?? 'idling';
  } catch (err) {
    ctx.log.warn({ err }, 'chat status unavailable');
    return 'unknown';
  }
}

/** Every user's chat status (by user id); all `unknown` while Redis does not answer. */
export async function shownChatStatuses(ctx: AppContext): Promise<(userId: number) => ShownChatStatus> {
  try {
    const statuses = await ctx.coordination.chatStatus.all();
    return (userId) => statuses.get(userId) ?? 'idling';
  } catch (err) {
    ctx.log.warn({ err }, 'chat statuses unavailable');
    return () => 'unknown';
  }
}
