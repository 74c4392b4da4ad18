import { joinSettings } from '../presenters/user.presenter';
import { getUser, updateUserSettings } from '../services/user.service';
import type { TestApp } from './harness';

export interface ChatUserOptions {
  /** Asks left on openai_api: 10 unless given; `null` keeps the count every new user gets. */
  asks?: number | null;
  /** The user's own OpenAI API address (with a test key), used instead of the configured one. */
  ownApi?: string;
  /** No rate limit on openai_web either (openai_api never has one here). */
  webUnlimited?: boolean;
}

/** A signed-in user who may ask on openai_api without a rate limit: its id, login and session cookie. */
export async function chatUser(app: TestApp, options: ChatUserOptions = {}) {
  const u = await app.createUser();
  const s = joinSettings(u.setting, u.counters);
  s.openai_api.rate_limits = [];
  if (options.webUnlimited) s.openai_web.rate_limits = [];
  if (options.asks !== null) s.openai_api.total_ask_count = options.asks ?? 10;
  if (options.ownApi !== undefined) {
    s.openai_api.allow_custom_openai_api = true;
    s.openai_api.custom_openai_api_settings = { url: options.ownApi, key: 'sk-test' };
  }
  await updateUserSettings(app.ctx, u.row.id, s);
  return {
    id: u.row.id,
    username: u.row.username,
    password: u.password,
    cookie: await app.login(u.row.username, u.password),
  };
}

/** How many asks the user has left on openai_api (-1: no limit). */
export async function apiAsksLeft(app: TestApp, userId: number): Promise<number> {
  const u = await getUser(app.ctx, userId);
  return joinSettings(u.setting, u.counters).openai_api.total_ask_count;
}

/** The user's asks as the ask log has them, oldest first: how each ended and how many asks it cost. */
export function askLogsOf(app: TestApp, userId: number): Promise<{ outcome: string; charged: number }[]> {
  return app.ctx.dbHandle.db
    .selectFrom('ask_logs')
    .select(['outcome', 'charged'])
    .where('user_id', '=', userId)
    .orderBy('time')
    .orderBy('id')
    .execute();
}
