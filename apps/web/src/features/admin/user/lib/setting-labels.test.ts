import { describe, expect, it } from 'vitest';
import { i18n } from '../../../../i18n';
import { adminKey } from '../../shared/admin-i18n';
import type { AdminKey } from '../../shared/admin-i18n';
import { settingFieldLabel } from './setting-labels';

const label = (path: string) =>
  settingFieldLabel(
    path,
    (key: AdminKey) => i18n.t(adminKey(key)),
    (key: string) => i18n.t(key),
  );

describe('settingFieldLabel', () => {
  it('names each field of the quotas form as the form shows it', async () => {
    await i18n.changeLanguage('en-US');
    expect(label('monthly_budget')).toBe('Monthly budget');
    expect(label('openai_web.max_conv_count')).toBe('OpenAI Web › Max conversations');
    expect(label('openai_api.per_model_ask_count.gpt_4')).toBe('OpenAI API › Asks left per model › GPT-4');
    expect(label('openai_web.daily_available_time_slots.1.end_time')).toBe(
      'OpenAI Web › Daily time slots (UTC) 2 › End',
    );
    expect(label('openai_api.custom.url')).toBe('OpenAI API › Own API base URL');
    await i18n.changeLanguage('zh-CN');
    expect(label('openai_web.rate_limits.0.max_requests')).toMatch(/^OpenAI 网页版 › 频率限制 1 › \S+$/);
  });

  it('never shows an internal name: a path the form has no field for is named by its source, or not at all', async () => {
    await i18n.changeLanguage('en-US');
    expect(label('openai_web.something_new')).toBe('OpenAI Web');
    expect(label('openai_web.per_model_ask_count.not_a_model')).toBe('OpenAI Web › Asks left per model');
    expect(label('setting')).toBe('');
  });
});
