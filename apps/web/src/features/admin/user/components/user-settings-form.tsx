import {
  Alert,
  Button,
  Checkbox,
  Group,
  PasswordInput,
  SegmentedControl,
  Stack,
  Switch,
  Text,
  TextInput,
} from '@mantine/core';
import { API_MODELS, WEB_MODELS } from '@cc/contracts';
import type { ApiModel, UserReadAdmin, WebModel } from '@cc/contracts';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useAdminT } from '../../shared/admin-i18n';
import { issuesOf, issuesToErrors, serverIssuesToErrors } from '../../shared/form-errors';
import type { FieldErrors } from '../../shared/form-errors';
import { notifySuccess } from '../../shared/notify';
import { NumberField } from '../../shared/number-field';
import { formatMoney } from '../../../../lib/money';
import { useUpdateUserSetting } from '../api/update-user-setting';
import { countsSeen, formToPayload, settingToForm, validateSettingForm } from '../lib/setting-form';
import { settingFieldLabel } from '../lib/setting-labels';
import type { ApiSettingForm, SettingForm, WebSettingForm } from '../lib/setting-form';
import { SourceFields } from './source-fields';
import type { CommonSourceForm } from './source-fields';

/** Per-source settings of one user: both tabs are one form, saved together (the API replaces the whole setting). */
export function UserSettingsForm({ user, onDone }: { user: UserReadAdmin; onDone: () => void }) {
  const { ta, t } = useAdminT();
  const { i18n } = useTranslation();
  const [form, setForm] = useState<SettingForm>(() => settingToForm(user.setting));
  const [tab, setTab] = useState<'openai_web' | 'openai_api'>('openai_web');
  const [errors, setErrors] = useState<FieldErrors>({});
  const mutation = useUpdateUserSetting();
  const exists = (key: string) => i18n.exists(key);
  const budget = user.setting.budget;
  /** What was spent against a budget so far (this day or month for those), as shown under its field. */
  const budgetSpent = (key: 'credits' | 'daily_budget' | 'monthly_budget') => {
    if (!budget) return '—';
    const period = key === 'credits' ? budget.total : key === 'daily_budget' ? budget.daily : budget.monthly;
    return formatMoney(period.spent, budget.currency, i18n.language);
  };

  const setWeb = (patch: Partial<CommonSourceForm> | Partial<WebSettingForm>) =>
    setForm((f) => ({ ...f, openai_web: { ...f.openai_web, ...(patch as Partial<WebSettingForm>) } }));
  const setApi = (patch: Partial<CommonSourceForm> | Partial<ApiSettingForm>) =>
    setForm((f) => ({ ...f, openai_api: { ...f.openai_api, ...(patch as Partial<ApiSettingForm>) } }));

  const handleSubmit = async () => {
    const issues = validateSettingForm(form);
    const found = issuesToErrors(issues, t, exists);
    setErrors(found);
    if (issues.length > 0) {
      const first = String(issues[0]?.path[0] ?? '');
      if (first === 'openai_web' || first === 'openai_api') setTab(first);
      return;
    }
    try {
      const setting = { ...formToPayload(form), counts_seen: countsSeen(user.setting) };
      await mutation.mutateAsync({ id: user.id, setting });
      notifySuccess(ta('common.saved'));
      onDone();
    } catch (error) {
      setErrors(serverIssuesToErrors(issuesOf(error), t, exists));
    }
  };

  const errorCount = Object.keys(errors).length;
  const tabErrors = (prefix: string) => Object.keys(errors).some((k) => k.startsWith(prefix));

  return (
    <form
      onSubmit={(e) => {
        e.preventDefault();
        void handleSubmit();
      }}
      noValidate
    >
      <Stack gap="md">
        <Text size="sm" c="dimmed">
          {ta('user.settingsHint', { username: user.username, id: user.id })}
        </Text>
        <Group gap="md" align="flex-start" data-testid="budget-fields">
          {(['credits', 'daily_budget', 'monthly_budget'] as const).map((key) => (
            <NumberField
              key={key}
              label={ta(`user.budget.${key}`) + (budget ? ` (${budget.currency})` : '')}
              description={ta('user.budget.hint', {
                spent: budgetSpent(key),
              })}
              min={-1}
              value={form[key]}
              onChange={(v) => setForm((f) => ({ ...f, [key]: v }))}
              error={errors[key]}
              maw={220}
            />
          ))}
        </Group>
        {errorCount > 0 && (
          <Alert color="red" title={ta('common.checkInput')}>
            <Stack gap={2}>
              {Object.entries(errors).map(([path, message]) => {
                const label = settingFieldLabel(path, ta, t);
                return (
                  <Text key={path} size="sm">
                    {label ? t('common.labelled', { label, text: message }) : message}
                  </Text>
                );
              })}
            </Stack>
          </Alert>
        )}
        <SegmentedControl
          value={tab}
          onChange={(v) => setTab(v)}
          data={[
            {
              value: 'openai_web',
              label: `${t('sources.openai_web')}${tabErrors('openai_web') ? ' ⚠' : ''}`,
            },
            {
              value: 'openai_api',
              label: `${t('sources.openai_api')}${tabErrors('openai_api') ? ' ⚠' : ''}`,
            },
          ]}
          aria-label={ta('common.source')}
        />
        {tab === 'openai_web' ? (
          <Stack gap="md" data-testid="settings-openai_web">
            <SourceFields
              value={form.openai_web}
              models={WEB_MODELS}
              onChange={(patch) =>
                setWeb({
                  ...patch,
                  ...(patch.available_models && { available_models: patch.available_models as WebModel[] }),
                })
              }
              errors={errors}
              prefix="openai_web"
            />
            <Switch
              label={ta('user.allowAttachments')}
              checked={form.openai_web.allow_uploading_attachments}
              onChange={(e) => setWeb({ allow_uploading_attachments: e.currentTarget.checked })}
            />
            <Switch
              label={ta('user.allowImages')}
              checked={form.openai_web.allow_uploading_multimodal_images}
              onChange={(e) => setWeb({ allow_uploading_multimodal_images: e.currentTarget.checked })}
            />
          </Stack>
        ) : (
          <Stack gap="md" data-testid="settings-openai_api">
            <SourceFields
              value={form.openai_api}
              models={API_MODELS}
              onChange={(patch) =>
                setApi({
                  ...patch,
                  ...(patch.available_models && { available_models: patch.available_models as ApiModel[] }),
                })
              }
              errors={errors}
              prefix="openai_api"
            />
            <Switch
              label={ta('user.allowCustomApi')}
              checked={form.openai_api.allow_custom_openai_api}
              onChange={(e) => setApi({ allow_custom_openai_api: e.currentTarget.checked })}
            />
            <TextInput
              label={ta('user.customApiUrl')}
              placeholder="https://api.example.com/v1/"
              value={form.openai_api.custom.url}
              onChange={(e) => {
                const url = e.currentTarget.value;
                setApi({ custom: { ...form.openai_api.custom, url } });
              }}
              error={errors['openai_api.custom.url']}
            />
            <Group align="flex-end" gap="xs">
              <PasswordInput
                label={ta('user.customApiKey')}
                placeholder={
                  form.openai_api.custom.hasStoredKey ? ta('user.keyUnchanged') : ta('user.keyNotSet')
                }
                autoComplete="new-password"
                disabled={form.openai_api.custom.clearKey}
                value={form.openai_api.custom.key}
                onChange={(e) => {
                  const key = e.currentTarget.value;
                  setApi({ custom: { ...form.openai_api.custom, key } });
                }}
                error={errors['openai_api.custom.key']}
                style={{ flex: 1 }}
              />
              {form.openai_api.custom.hasStoredKey && (
                <Checkbox
                  mb={8}
                  label={ta('user.removeKey')}
                  checked={form.openai_api.custom.clearKey}
                  onChange={(e) => {
                    const clearKey = e.currentTarget.checked;
                    setApi({ custom: { ...form.openai_api.custom, clearKey } });
                  }}
                />
              )}
            </Group>
          </Stack>
        )}
        <Group justify="flex-end">
          <Button variant="default" onClick={onDone}>
            {ta('common.cancel')}
          </Button>
          <Button type="submit" loading={mutation.isPending}>
            {ta('common.save')}
          </Button>
        </Group>
      </Stack>
    </form>
  );
}
