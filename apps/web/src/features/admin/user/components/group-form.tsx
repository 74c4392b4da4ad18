import { Alert, Button, Group, SegmentedControl, Stack, Switch, Text, TextInput } from '@mantine/core';
import { API_MODELS, UserGroupWrite, WEB_MODELS } from '@cc/contracts';
import type { UserGroupRead } from '@cc/contracts';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useAdminT } from '../../shared/admin-i18n';
import { fromZodIssue, issuesOf, issuesToErrors, serverIssuesToErrors } from '../../shared/form-errors';
import type { FieldErrors } from '../../shared/form-errors';
import { notifySuccess } from '../../shared/notify';
import { NumberField } from '../../shared/number-field';
import { useSaveGroup } from '../api/groups';
import { defaultTemplate, formToGroup, templateToForm } from '../lib/group-form';
import type { ApiSettingForm, SettingForm, WebSettingForm } from '../lib/setting-form';
import { SourceFields } from './source-fields';

/**
 * A group's name and settings template (the per-source fields of a user's settings). Saving an existing group
 * writes the fields it changes into every member's settings.
 */
export function GroupForm({ group, onDone }: { group?: UserGroupRead; onDone: () => void }) {
  const { ta, t } = useAdminT();
  const { i18n } = useTranslation();
  const [name, setName] = useState(group?.name ?? '');
  const [form, setForm] = useState<SettingForm>(() => templateToForm(group ?? defaultTemplate()));
  const [tab, setTab] = useState<'openai_web' | 'openai_api'>('openai_web');
  const [withBudgets, setWithBudgets] = useState(!!group?.budgets);
  const [errors, setErrors] = useState<FieldErrors>({});
  const save = useSaveGroup();
  const exists = (key: string) => i18n.exists(key);

  const handleSubmit = async () => {
    const body = formToGroup(name, form, withBudgets);
    const parsed = UserGroupWrite.safeParse(body);
    if (!parsed.success) {
      setErrors(issuesToErrors(parsed.error.issues.map(fromZodIssue), t, exists));
      return;
    }
    try {
      await save.mutateAsync({ id: group?.id, group: parsed.data });
      notifySuccess(ta('common.saved'));
      onDone();
    } catch (error) {
      setErrors(serverIssuesToErrors(issuesOf(error), t, exists));
    }
  };

  const web = form.openai_web;
  const api = form.openai_api;
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
          {ta('user.groups.formHint')}
        </Text>
        <TextInput
          label={ta('user.groups.name')}
          required
          value={name}
          onChange={(e) => setName(e.currentTarget.value)}
          error={errors.name}
        />
        <Switch
          label={ta('user.groups.setsBudgets')}
          description={ta('user.groups.setsBudgetsHint')}
          checked={withBudgets}
          onChange={(e) => setWithBudgets(e.currentTarget.checked)}
        />
        {withBudgets && (
          <Group gap="md" align="flex-start" data-testid="group-budget-fields">
            {(['credits', 'daily_budget', 'monthly_budget'] as const).map((key) => (
              <NumberField
                key={key}
                label={ta(`user.budget.${key}`)}
                description={ta('user.creditsHint')}
                min={-1}
                value={form[key]}
                onChange={(v) => setForm((f) => ({ ...f, [key]: v }))}
                error={errors[`budgets.${key}`]}
                maw={220}
              />
            ))}
          </Group>
        )}
        {Object.keys(errors).length > 0 && (
          <Alert color="red" title={ta('common.checkInput')}>
            {Object.entries(errors).map(([path, message]) => (
              <Text key={path} size="sm">
                {path}: {message}
              </Text>
            ))}
          </Alert>
        )}
        <SegmentedControl
          value={tab}
          onChange={(v) => setTab(v)}
          data={[
            { value: 'openai_web', label: t('sources.openai_web') },
            { value: 'openai_api', label: t('sources.openai_api') },
          ]}
          aria-label={ta('common.source')}
        />
        {tab === 'openai_web' ? (
          <Stack gap="md">
            <SourceFields
              value={web}
              models={WEB_MODELS}
              onChange={(patch) =>
                setForm((f) => ({
                  ...f,
                  openai_web: { ...f.openai_web, ...(patch as Partial<WebSettingForm>) },
                }))
              }
              errors={errors}
              prefix="openai_web"
            />
            <Switch
              label={ta('user.allowAttachments')}
              checked={web.allow_uploading_attachments}
              onChange={(e) => {
                const on = e.currentTarget.checked;
                setForm((f) => ({ ...f, openai_web: { ...f.openai_web, allow_uploading_attachments: on } }));
              }}
            />
            <Switch
              label={ta('user.allowImages')}
              checked={web.allow_uploading_multimodal_images}
              onChange={(e) => {
                const on = e.currentTarget.checked;
                setForm((f) => ({
                  ...f,
                  openai_web: { ...f.openai_web, allow_uploading_multimodal_images: on },
                }));
              }}
            />
          </Stack>
        ) : (
          <Stack gap="md">
            <SourceFields
              value={api}
              models={API_MODELS}
              onChange={(patch) =>
                setForm((f) => ({
                  ...f,
                  openai_api: { ...f.openai_api, ...(patch as Partial<ApiSettingForm>) },
                }))
              }
              errors={errors}
              prefix="openai_api"
            />
            <Switch
              label={ta('user.allowCustomApi')}
              checked={api.allow_custom_openai_api}
              onChange={(e) => {
                const on = e.currentTarget.checked;
                setForm((f) => ({ ...f, openai_api: { ...f.openai_api, allow_custom_openai_api: on } }));
              }}
            />
          </Stack>
        )}
        <Group justify="flex-end">
          <Button variant="default" onClick={onDone}>
            {ta('common.cancel')}
          </Button>
          <Button type="submit" loading={save.isPending}>
            {ta('common.save')}
          </Button>
        </Group>
      </Stack>
    </form>
  );
}
