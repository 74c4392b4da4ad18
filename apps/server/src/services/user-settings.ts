import { MASKED_SECRET, SOURCES } from '@cc/contracts';
import type {
  ApiSourceSetting,
  ChatSource,
  ChatStatus,
  UserSetting,
  UserSettingUpdate,
  WebSourceSetting,
} from '@cc/contracts';
import type { UserSettingsRow } from '../db/schema';
import type { CounterRow } from '../repositories/quota.repository';
import { TOTAL } from '../repositories/quota.repository';
import type { StoredSettings } from '../repositories/user-setting.repository';
import type { SecretBox } from './secret-box';

type StoredWeb = Omit<WebSourceSetting, 'total_ask_count' | 'per_model_ask_count'>;
type StoredApi = Omit<ApiSourceSetting, 'total_ask_count' | 'per_model_ask_count'>;

/**
 * Splits an admin's settings write into the settings row (JSON without counters; the custom API key sealed)
 * and the counter rows. `previousSealedKey` is kept when the client sends the mask back.
 */
export function splitSettings(
  box: SecretBox,
  update: Omit<UserSettingUpdate, 'openai_web_chat_status'>,
  previousSealedKey: string | null,
): { stored: StoredSettings; counters: Omit<CounterRow, 'user_id'>[] } {
  const counters: Omit<CounterRow, 'user_id'>[] = [];
  const strip = <S extends WebSourceSetting | ApiSourceSetting>(source: ChatSource, s: S) => {
    const { total_ask_count, per_model_ask_count, ...rest } = s;
    counters.push({ source, model: TOTAL, remaining: total_ask_count });
    for (const [model, remaining] of Object.entries(per_model_ask_count)) {
      if (remaining !== undefined) counters.push({ source, model, remaining });
    }
    return rest;
  };
  const web: StoredWeb = strip('openai_web', update.openai_web);
  const api: StoredApi = strip('openai_api', update.openai_api);
  const key = update.openai_api.custom_openai_api_settings.key;
  const sealedKey = key === MASKED_SECRET ? previousSealedKey : key ? box.seal(key) : null;
  api.custom_openai_api_settings = { ...api.custom_openai_api_settings, key: sealedKey };
  return {
    stored: { credits: update.credits, openai_web: JSON.stringify(web), openai_api: JSON.stringify(api) },
    counters,
  };
}

/** Rebuilds the settings shape; the custom API key stays sealed (presenters mask it, sources open it). */
export function joinSettings(
  row: UserSettingsRow,
  counters: CounterRow[],
  chatStatus?: ChatStatus,
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
    credits: row.credits,
    openai_web_chat_status: chatStatus ?? 'idling',
    openai_web: { ...(JSON.parse(row.openai_web) as StoredWeb), ...countersOf(webSource) },
    openai_api: { ...(JSON.parse(row.openai_api) as StoredApi), ...countersOf(apiSource) },
  };
}

export function sealedCustomKey(row: UserSettingsRow): string | null {
  return (JSON.parse(row.openai_api) as StoredApi).custom_openai_api_settings.key;
}
