import { MODEL_DISPLAY } from '@cc/contracts';
import { modelDisplay } from '../../../../components/model-display';
import type { AdminKey } from '../../shared/admin-i18n';

type Translate = (key: string) => string;
type AdminTranslate = (key: AdminKey, options?: Record<string, unknown>) => string;

/** The field labels of one source's settings, by the field's name in the setting. */
const SOURCE_FIELDS: Record<string, AdminKey> = {
  allow_to_use: 'user.allowToUse',
  valid_until: 'user.validUntil',
  max_conv_count: 'user.maxConvCount',
  total_ask_count: 'user.totalAskCount',
  available_models: 'user.availableModels',
  allow_uploading_attachments: 'user.allowAttachments',
  allow_uploading_multimodal_images: 'user.allowImages',
  allow_custom_openai_api: 'user.allowCustomApi',
};
const ROW_FIELDS: Record<string, AdminKey> = {
  window_seconds: 'user.windowSeconds',
  max_requests: 'user.maxRequests',
  start_time: 'common.startTime',
  end_time: 'common.endTime',
};
const CUSTOM_FIELDS: Record<string, AdminKey> = { url: 'user.customApiUrl', key: 'user.customApiKey' };

/**
 * A field of the quotas form named as the admin sees it on screen, from its path in the setting
 * (`openai_web.rate_limits.0.window_seconds` → "OpenAI Web › Rate limits 1 › Window (seconds)"): the form's summary of
 * errors never shows a field's internal name. A path the form has no field for is named by its source, or not at all.
 */
export function settingFieldLabel(path: string, ta: AdminTranslate, t: Translate): string {
  const [head = '', field = '', ...rest] = path.split('.');
  if (head === 'credits' || head === 'daily_budget' || head === 'monthly_budget')
    return ta(`user.budget.${head}`);
  if (head !== 'openai_web' && head !== 'openai_api') return '';
  const parts = [t(`sources.${head}`)];
  if (field in SOURCE_FIELDS) parts.push(ta(SOURCE_FIELDS[field]!));
  else if (field === 'per_model_ask_count') {
    parts.push(ta('user.perModelAskCount'));
    const model = rest[0] ?? '';
    if (model in MODEL_DISPLAY) parts.push(modelDisplay(model).label);
  } else if (field === 'rate_limits' || field === 'daily_available_time_slots') {
    const row = Number(rest[0]);
    const list = ta(field === 'rate_limits' ? 'user.rateLimits' : 'user.timeSlots');
    parts.push(Number.isInteger(row) ? `${list} ${row + 1}` : list);
    const name = rest[1] ?? '';
    if (name in ROW_FIELDS) parts.push(ta(ROW_FIELDS[name]!));
  } else if (field === 'custom' || field === 'custom_openai_api_settings') {
    const name = rest[0] ?? '';
    if (name in CUSTOM_FIELDS) parts.push(ta(CUSTOM_FIELDS[name]!));
  }
  return parts.join(' › ');
}
