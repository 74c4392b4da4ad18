import { MASKED_SECRET, toMicros } from '@cc/contracts';
import type { ApiSourceSetting, ChatSource, UserSettingUpdate, WebSourceSetting } from '@cc/contracts';
import type { UserSettingsRow } from '../db/schema';
import { joinSettings } from '../presenters/user.presenter';
import type { StoredApi, StoredWeb } from '../presenters/user.presenter';
import type { CounterRow } from '../repositories/quota.repository';
import { TOTAL } from '../repositories/quota.repository';
import type { StoredSettings } from '../repositories/user-setting.repository';
import type { SecretBox } from './secret-box';

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
    stored: {
      budget_total: toMicros(update.credits),
      ...(update.daily_budget === undefined ? {} : { budget_daily: toMicros(update.daily_budget) }),
      ...(update.monthly_budget === undefined ? {} : { budget_monthly: toMicros(update.monthly_budget) }),
      openai_web: JSON.stringify(web),
      openai_api: JSON.stringify(api),
    },
    counters,
  };
}

/**
 * The counters to write for a settings save that says what its form saw (`counts_seen`): a count sent as it was seen
 * keeps its value now (asks taken since the form was loaded stay taken); a count the admin changed is written.
 */
export function keepUnchangedCounts(
  sent: Omit<CounterRow, 'user_id'>[],
  now: Omit<CounterRow, 'user_id'>[],
  seen: NonNullable<UserSettingUpdate['counts_seen']>,
): Omit<CounterRow, 'user_id'>[] {
  return sent.map((counter) => {
    const source = seen[counter.source as ChatSource];
    const saw = counter.model === TOTAL ? source.total_ask_count : source.per_model_ask_count[counter.model];
    const current = now.find((c) => c.source === counter.source && c.model === counter.model);
    return current && saw === counter.remaining ? { ...counter, remaining: current.remaining } : counter;
  });
}

export function sealedCustomKey(row: UserSettingsRow): string | null {
  return (JSON.parse(row.openai_api) as StoredApi).custom_openai_api_settings.key;
}

/**
 * A user's settings and counters as the audit log compares them (the sealed custom key only shows a change). A
 * per-model count of -1 is left out: unlimited is the same as no count for that model.
 */
export function auditedSettings(loaded: { setting: UserSettingsRow; counters: CounterRow[] }) {
  const { credits, daily_budget, monthly_budget, openai_web, openai_api } = joinSettings(
    loaded.setting,
    loaded.counters,
  );
  const limited = (counts: Record<string, number | undefined>) =>
    Object.fromEntries(Object.entries(counts).filter(([, n]) => n !== -1));
  return {
    credits,
    daily_budget,
    monthly_budget,
    openai_web: { ...openai_web, per_model_ask_count: limited(openai_web.per_model_ask_count) },
    openai_api: { ...openai_api, per_model_ask_count: limited(openai_api.per_model_ask_count) },
  };
}

/** Audited settings fields whose values are secrets (only that they changed is recorded). */
export const isSecretSetting = (key: string): boolean => key.endsWith('.key');
