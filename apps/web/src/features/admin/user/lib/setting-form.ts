import { API_MODELS, MASKED_SECRET, UserSettingUpdate, WEB_MODELS } from '@cc/contracts';
import type {
  ApiModel,
  ApiSourceSetting,
  ChatStatus,
  UserSetting,
  WebModel,
  WebSourceSetting,
} from '@cc/contracts';
import { fromZodIssue } from '../../shared/form-errors';
import type { PathIssue } from '../../shared/form-errors';

/** Per-model counts of the form: every model of the source, -1 = unlimited. */
export type ModelCounts<M extends string> = Record<M, number>;

export type WebSettingForm = Omit<WebSourceSetting, 'per_model_ask_count'> & {
  per_model_ask_count: ModelCounts<WebModel>;
};

/** The custom API key is write-only: the form never holds the stored key, only whether there is one. */
export interface CustomApiForm {
  url: string;
  /** A new key; empty = keep the stored one. */
  key: string;
  /** The server has a key (it read back as the mask). */
  hasStoredKey: boolean;
  /** Remove the stored key. */
  clearKey: boolean;
}

export type ApiSettingForm = Omit<ApiSourceSetting, 'per_model_ask_count' | 'custom_openai_api_settings'> & {
  per_model_ask_count: ModelCounts<ApiModel>;
  custom: CustomApiForm;
};

export interface SettingForm {
  /** Total spend budget in the billing currency; -1 = unlimited. */
  credits: number;
  /** Per-day and per-month spend budgets; -1 = none. */
  daily_budget: number;
  monthly_budget: number;
  /** Set to 'idling' to reset a stuck user; undefined = leave as is. */
  openai_web_chat_status?: ChatStatus;
  openai_web: WebSettingForm;
  openai_api: ApiSettingForm;
}

function fillCounts<M extends string>(
  models: readonly M[],
  counts: Partial<Record<M, number>>,
): ModelCounts<M> {
  const out = {} as ModelCounts<M>;
  for (const model of models) {
    const value = counts[model];
    out[model] = value === undefined || value === null || value < 0 ? -1 : value;
  }
  return out;
}

/** The stored setting as editable form state (a deep copy: editing never touches the query cache). */
export function settingToForm(setting: UserSetting): SettingForm {
  const web = setting.openai_web;
  const api = setting.openai_api;
  const custom = api.custom_openai_api_settings;
  return {
    credits: setting.credits,
    daily_budget: setting.daily_budget,
    monthly_budget: setting.monthly_budget,
    openai_web: {
      ...web,
      available_models: [...web.available_models],
      rate_limits: web.rate_limits.map((r) => ({ ...r })),
      daily_available_time_slots: web.daily_available_time_slots.map((s) => ({ ...s })),
      per_model_ask_count: fillCounts(WEB_MODELS, web.per_model_ask_count),
    },
    openai_api: {
      allow_to_use: api.allow_to_use,
      valid_until: api.valid_until,
      max_conv_count: api.max_conv_count,
      total_ask_count: api.total_ask_count,
      available_models: [...api.available_models],
      rate_limits: api.rate_limits.map((r) => ({ ...r })),
      daily_available_time_slots: api.daily_available_time_slots.map((s) => ({ ...s })),
      per_model_ask_count: fillCounts(API_MODELS, api.per_model_ask_count),
      allow_custom_openai_api: api.allow_custom_openai_api,
      custom: {
        url: custom.url ?? '',
        key: '',
        hasStoredKey: !!custom.key,
        clearKey: false,
      },
    },
  };
}

/** The key to send: a new one, null to remove, or the mask to keep the stored one. */
export function customKeyPayload(custom: CustomApiForm): string | null {
  if (custom.clearKey) return null;
  if (custom.key.trim() !== '') return custom.key.trim();
  return custom.hasStoredKey ? MASKED_SECRET : null;
}

/** Form state → the full PATCH /user/{id}/setting body. Per-model counts are sent for every model (-1 = unlimited). */
export function formToPayload(form: SettingForm): UserSettingUpdate {
  const { custom, ...api } = form.openai_api;
  const payload: UserSettingUpdate = {
    credits: form.credits,
    daily_budget: form.daily_budget,
    monthly_budget: form.monthly_budget,
    openai_web: {
      ...form.openai_web,
      per_model_ask_count: { ...form.openai_web.per_model_ask_count },
    },
    openai_api: {
      ...api,
      per_model_ask_count: { ...api.per_model_ask_count },
      custom_openai_api_settings: {
        url: custom.url.trim() === '' ? null : custom.url.trim(),
        key: customKeyPayload(custom),
      },
    },
  };
  if (form.openai_web_chat_status) payload.openai_web_chat_status = form.openai_web_chat_status;
  return payload;
}

/**
 * The asks left of each source as the form loaded them (`counts_seen`): a count the admin did not change stays what
 * it is by then on the server (the user may have asked since), one they changed is written.
 */
export function countsSeen(setting: UserSetting): NonNullable<UserSettingUpdate['counts_seen']> {
  const seen = ({ total_ask_count, per_model_ask_count }: WebSourceSetting | ApiSourceSetting) => ({
    total_ask_count,
    per_model_ask_count,
  });
  return { openai_web: seen(setting.openai_web), openai_api: seen(setting.openai_api) };
}

/**
 * Checks the payload against the contract's schema. Issue paths are those of the payload, which match the
 * form's except the custom API fields (`openai_api.custom_openai_api_settings.url` → `openai_api.custom.url`).
 */
export function validateSettingForm(form: SettingForm): PathIssue[] {
  const result = UserSettingUpdate.safeParse(formToPayload(form));
  if (result.success) return [];
  return result.error.issues.map((issue) =>
    fromZodIssue({
      ...issue,
      path: issue.path.map((p) => (p === 'custom_openai_api_settings' ? 'custom' : p)),
    }),
  );
}

/** Adds to a count; from unlimited (-1) the result starts at 0 + amount. */
export function addToCount(value: number, amount: number): number {
  return Math.max(0, value) + amount;
}
