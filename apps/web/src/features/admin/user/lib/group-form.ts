import { DEFAULT_NEW_USER_API, DEFAULT_NEW_USER_WEB } from '@cc/contracts';
import type { GroupTemplate, UserGroupWrite } from '@cc/contracts';
import { formToPayload, settingToForm } from './setting-form';
import type { SettingForm } from './setting-form';

/** A new group starts from the new-user defaults. */
export function defaultTemplate(): GroupTemplate {
  const { custom_openai_api_settings: _custom, ...api } = structuredClone(DEFAULT_NEW_USER_API);
  return { openai_web: structuredClone(DEFAULT_NEW_USER_WEB), openai_api: api };
}

/** A template as the settings form's state (the form of a user's settings, without the own endpoint). */
export function templateToForm(template: GroupTemplate): SettingForm {
  return settingToForm({
    id: 0,
    user_id: 0,
    credits: template.budgets?.credits ?? -1,
    daily_budget: template.budgets?.daily_budget ?? -1,
    monthly_budget: template.budgets?.monthly_budget ?? -1,
    openai_web_chat_status: 'idling',
    openai_web: template.openai_web,
    openai_api: { ...template.openai_api, custom_openai_api_settings: { url: null, key: null } },
  });
}

/** The form's state → the group's write body; `withBudgets`: the group sets its members' budgets. */
export function formToGroup(name: string, form: SettingForm, withBudgets = false): UserGroupWrite {
  const payload = formToPayload(form);
  const { custom_openai_api_settings: _custom, ...api } = payload.openai_api;
  const budgets = withBudgets
    ? { credits: form.credits, daily_budget: form.daily_budget, monthly_budget: form.monthly_budget }
    : null;
  return { name: name.trim(), openai_web: payload.openai_web, openai_api: api, budgets };
}
