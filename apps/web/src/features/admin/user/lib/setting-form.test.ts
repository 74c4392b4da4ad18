import { MASKED_SECRET } from '@cc/contracts';
import { describe, expect, it } from 'vitest';
import { adminUser } from '../../shared/fixtures';
import {
  addToCount,
  countsSeen,
  customKeyPayload,
  formToPayload,
  settingToForm,
  validateSettingForm,
} from './setting-form';

describe('settings form ↔ payload', () => {
  it('fills every model with -1 (unlimited) and round-trips the stored values', () => {
    const user = adminUser();
    const form = settingToForm(user.setting);
    expect(form.openai_web.per_model_ask_count.gpt_3_5).toBe(-1);
    expect(form.openai_web.per_model_ask_count.gpt_4).toBe(20);
    expect(form.openai_api.per_model_ask_count).toEqual({ gpt_3_5: -1, gpt_4: 20 });
    const payload = formToPayload(form);
    expect(payload.openai_web.total_ask_count).toBe(100);
    expect(payload.openai_web.per_model_ask_count).toMatchObject({ gpt_4: 20, gpt_3_5: -1 });
    expect(payload.openai_api.custom_openai_api_settings).toEqual({ url: null, key: null });
    expect(payload).not.toHaveProperty('openai_web_chat_status');
    expect(validateSettingForm(form)).toEqual([]);
  });

  it('records the asks left as loaded, only the counts, for the server to keep those not changed', () => {
    const user = adminUser();
    const seen = countsSeen(user.setting);
    expect(seen).toEqual({
      openai_web: {
        total_ask_count: user.setting.openai_web.total_ask_count,
        per_model_ask_count: user.setting.openai_web.per_model_ask_count,
      },
      openai_api: {
        total_ask_count: user.setting.openai_api.total_ask_count,
        per_model_ask_count: user.setting.openai_api.per_model_ask_count,
      },
    });
  });

  it('does not share arrays with the cached setting', () => {
    const user = adminUser();
    const form = settingToForm(user.setting);
    form.openai_web.rate_limits.push({ window_seconds: 1, max_requests: 1 });
    form.openai_web.available_models.push('gpt_4_dalle');
    expect(user.setting.openai_web.rate_limits).toHaveLength(1);
    expect(user.setting.openai_web.available_models).not.toContain('gpt_4_dalle');
  });

  it('keeps a stored custom key with the mask, replaces it, or removes it', () => {
    const user = adminUser();
    user.setting.openai_api.custom_openai_api_settings = { url: 'https://x.example/v1', key: MASKED_SECRET };
    const form = settingToForm(user.setting);
    expect(form.openai_api.custom).toEqual({
      url: 'https://x.example/v1',
      key: '',
      hasStoredKey: true,
      clearKey: false,
    });
    expect(formToPayload(form).openai_api.custom_openai_api_settings.key).toBe(MASKED_SECRET);
    expect(customKeyPayload({ ...form.openai_api.custom, key: ' sk-new ' })).toBe('sk-new');
    expect(customKeyPayload({ ...form.openai_api.custom, clearKey: true })).toBeNull();
    expect(customKeyPayload({ url: '', key: '', hasStoredKey: false, clearKey: false })).toBeNull();
  });

  it('sends the chat status only when resetting', () => {
    const form = { ...settingToForm(adminUser().setting), openai_web_chat_status: 'idling' as const };
    expect(formToPayload(form).openai_web_chat_status).toBe('idling');
  });

  it('reports contract violations at form paths', () => {
    const form = settingToForm(adminUser().setting);
    form.openai_web.daily_available_time_slots = [{ start_time: '25:00:00', end_time: '01:00:00' }];
    form.openai_web.rate_limits = [{ window_seconds: 0, max_requests: 1 }];
    form.openai_api.custom.url = 'not a url';
    const paths = validateSettingForm(form).map((i) => i.path.join('.'));
    expect(paths).toContain('openai_web.daily_available_time_slots.0.start_time');
    expect(paths).toContain('openai_web.rate_limits.0.window_seconds');
    expect(paths).toContain('openai_api.custom.url');
    const slot = validateSettingForm(form).find((i) => i.path.join('.').endsWith('start_time'));
    expect(slot?.message).toBe('validation.timeFormat');
    // A number out of range says its bound, in the words of the number fields.
    const window = validateSettingForm(form).find((i) => i.path.join('.').endsWith('window_seconds'));
    expect(window).toMatchObject({ message: 'adminx.schema.min', params: { min: 1 } });
  });

  it('adds to a count, starting from 0 when unlimited', () => {
    expect(addToCount(-1, 100)).toBe(100);
    expect(addToCount(5, 1000)).toBe(1005);
  });
});
