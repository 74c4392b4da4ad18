import { MASKED_SECRET, SOURCES, fromMicros } from '@cc/contracts';
import type {
  ApiSourceSetting,
  BillingConfig,
  ChatSource,
  ShownChatStatus,
  Config,
  UserRead,
  UserReadAdmin,
  UserSetting,
  WebSourceSetting,
} from '@cc/contracts';
import { PASSWORD_RESET_REQUIRED } from '../db/schema';
import type { UserRow, UserSettingsRow } from '../db/schema';
import { bool } from '../repositories/executor';
import type { CounterRow } from '../repositories/quota.repository';
import { TOTAL } from '../repositories/quota.repository';
import { budgetRow } from '../repositories/user-setting.repository';
import { presentBudget } from './budget.presenter';

/** A user with everything its read shape needs (what the user service loads). */
export interface LoadedUser {
  row: UserRow;
  setting: UserSettingsRow;
  counters: CounterRow[];
}

/** A source's settings as stored in the settings row: JSON without the counters (those are rows of their own). */
export type StoredWeb = Omit<WebSourceSetting, 'total_ask_count' | 'per_model_ask_count'>;
export type StoredApi = Omit<ApiSourceSetting, 'total_ask_count' | 'per_model_ask_count'>;

/** Rebuilds the settings shape; the custom API key stays sealed (presenters mask it, sources open it). */
export function joinSettings(
  row: UserSettingsRow,
  counters: CounterRow[],
  chatStatus?: ShownChatStatus,
): UserSetting {
  const countersOf = (source: ChatSource) => {
    const mine = counters.filter((c) => c.source === source);
    const per: Record<string, number> = {};
    for (const c of mine) if (c.model !== TOTAL) per[c.model] = c.remaining;
    return {
      total_ask_count: mine.find((c) => c.model === TOTAL)?.remaining ?? -1,
      per_model_ask_count: per,
    };
  };
  const [webSource, apiSource] = SOURCES;
  return {
    id: row.id,
    user_id: row.user_id,
    credits: fromMicros(Number(row.budget_total)),
    daily_budget: fromMicros(Number(row.budget_daily)),
    monthly_budget: fromMicros(Number(row.budget_monthly)),
    openai_web_chat_status: chatStatus ?? 'idling',
    openai_web: { ...(JSON.parse(row.openai_web) as StoredWeb), ...countersOf(webSource) },
    openai_api: { ...(JSON.parse(row.openai_api) as StoredApi), ...countersOf(apiSource) },
  };
}

export interface PresentUserOptions {
  /** Superuser viewer: adds `remark` and `password_reset_required`. */
  admin: boolean;
  /** For the user's own view: what they can really use under the live config. */
  effective?: Config;
  /** The billing settings: adds what was spent and is left of each budget. */
  billing?: BillingConfig;
  /** Live chat status (from coordination); absent = idling. */
  chatStatus?: ShownChatStatus | null;
}

function effectiveSetting(s: UserSetting, config: Config): UserSetting {
  const web = config.openai_web;
  const api = config.openai_api;
  return {
    ...s,
    openai_web: {
      ...s.openai_web,
      allow_to_use: s.openai_web.allow_to_use && web.enabled,
      available_models: s.openai_web.available_models.filter((m) => web.enabled_models.includes(m)),
      allow_uploading_attachments:
        s.openai_web.allow_uploading_attachments && web.enable_uploading_attachments,
      allow_uploading_multimodal_images:
        s.openai_web.allow_uploading_multimodal_images && web.enable_uploading_multimodal_images,
    },
    openai_api: {
      ...s.openai_api,
      allow_to_use: s.openai_api.allow_to_use && api.enabled,
      available_models: s.openai_api.available_models.filter((m) => api.enabled_models.includes(m)),
    },
  };
}

/** Row → user read shape. Never includes the password hash; the custom API key is masked. */
export function presentUser(u: LoadedUser, options: PresentUserOptions): UserRead | UserReadAdmin {
  let setting = joinSettings(u.setting, u.counters, options.chatStatus ?? 'idling');
  const custom = setting.openai_api.custom_openai_api_settings;
  setting.openai_api.custom_openai_api_settings = { url: custom.url, key: custom.key ? MASKED_SECRET : null };
  if (options.effective) setting = effectiveSetting(setting, options.effective);
  const billing = options.billing ?? options.effective?.billing;
  if (billing) setting.budget = presentBudget(budgetRow(u.setting), billing);
  const read: UserRead = {
    id: u.row.id,
    email: u.row.email,
    is_active: bool(u.row.is_active),
    is_superuser: bool(u.row.is_superuser),
    is_verified: bool(u.row.is_verified),
    username: u.row.username,
    nickname: u.row.nickname,
    last_active_time: u.row.last_active_time,
    create_time: u.row.create_time,
    avatar: u.row.avatar,
    setting,
  };
  if (!options.admin) return read;
  return {
    ...read,
    remark: u.row.remark,
    group_id: u.row.group_id,
    password_reset_required: u.row.hashed_password === PASSWORD_RESET_REQUIRED,
  };
}
