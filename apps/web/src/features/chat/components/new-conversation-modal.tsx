import { Avatar, Button, Group, Loader, MultiSelect, Select, Stack, Text, TextInput } from '@mantine/core';
import { modals } from '@mantine/modals';
import { notifications } from '@mantine/notifications';
import { useEffect, useState } from 'react';
import type { FormEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { SOURCES } from '@cc/contracts';
import type { NewConversationForm } from '@cc/contracts';
import { ModelAvatar, modelDisplay } from '../../../components/model-display';
import { i18n } from '../../../i18n';
import { remainingForModel } from '../../../lib/quota';
import { useUser } from '../../../lib/session';
import { STORAGE_KEYS, readStorage, writeStorage } from '../../../lib/storage';
import { resolveAssetUrl } from '../../../lib/assets';
import { useInstalledPlugins } from '../api/get-installed-plugins';
import {
  changeModel,
  changeSource,
  initialFormState,
  needsPlugins,
  validateForm,
} from '../lib/new-conversation';
import type { FormErrors, FormState } from '../lib/new-conversation';

interface Props {
  onConfirm: (form: NewConversationForm) => void;
  onCancel: () => void;
}

/** SPEC §2/§4/§5 new conversation form (500 px): title, source, model with remaining asks, plugins. */
export function NewConversationFormView({ onConfirm, onCancel }: Props) {
  const { t } = useTranslation();
  const { data: user } = useUser();
  const [state, setState] = useState<FormState>(() =>
    initialFormState(
      user,
      readStorage(STORAGE_KEYS.lastSelectedSource),
      readStorage(STORAGE_KEYS.lastSelectedModel),
    ),
  );
  const [errors, setErrors] = useState<FormErrors>({});
  const pluginsWanted = needsPlugins(state.source, state.model);
  const plugins = useInstalledPlugins(pluginsWanted);

  useEffect(() => {
    if (plugins.isError)
      notifications.show({ color: 'red', message: t('chat.loadPluginsFailed'), autoClose: 3000 });
  }, [plugins.isError, t]);

  const unlimited = t('common.unlimited');
  const remainingLabel = (model: string) => {
    if (!state.source) return '';
    const remaining = remainingForModel(user, state.source, model);
    return remaining === 'unlimited' ? unlimited : String(remaining);
  };

  const handleSubmit = (event: FormEvent) => {
    event.preventDefault();
    const result = validateForm(state);
    if (!result.ok) {
      setErrors(result.errors);
      for (const key of Object.values(result.errors))
        notifications.show({ color: 'red', message: t(key), autoClose: 3000 });
      return;
    }
    writeStorage(STORAGE_KEYS.lastSelectedSource, result.value.source);
    writeStorage(STORAGE_KEYS.lastSelectedModel, result.value.model);
    onConfirm(result.value);
  };

  const modelOptions = state.source && user ? user.setting[state.source].available_models : [];

  return (
    <form onSubmit={handleSubmit} noValidate data-testid="new-conversation-form">
      <Stack>
        <TextInput
          label={t('chat.form.title')}
          placeholder={
            state.source === 'openai_web'
              ? t('chat.form.titleAutoPlaceholder')
              : t('chat.form.titlePlaceholder')
          }
          value={state.title}
          onChange={(e) => {
            const title = e.currentTarget.value;
            setState((s) => ({ ...s, title }));
          }}
          maxLength={256}
        />
        <Select
          label={t('chat.form.source')}
          data={SOURCES.map((source) => ({
            value: source,
            label: t(`sources.${source}`),
            disabled: !user?.setting[source].allow_to_use,
          }))}
          value={state.source}
          onChange={(value) => {
            setErrors({});
            setState((s) => changeSource(s, value));
          }}
          allowDeselect={false}
          withAsterisk
          data-testid="source-select"
        />
        <Select
          label={t('chat.form.model')}
          placeholder={t('chat.form.modelPlaceholder')}
          data={modelOptions.map((model) => ({ value: model, label: modelDisplay(model).label }))}
          value={state.model}
          onChange={(value) => {
            setErrors((e) => ({ ...e, model: undefined }));
            setState((s) => changeModel(s, value));
          }}
          renderOption={({ option }) => (
            <Group gap="xs" wrap="nowrap" justify="space-between" w="100%">
              <Group gap="xs" wrap="nowrap">
                <ModelAvatar model={option.value} size={20} decorative />
                <Text size="sm">{option.label}</Text>
              </Group>
              <Text size="xs" c="dimmed">
                {t('chat.form.remaining', { count: remainingLabel(option.value) })}
              </Text>
            </Group>
          )}
          leftSection={state.model ? <ModelAvatar model={state.model} size={18} decorative /> : undefined}
          description={
            state.model ? t('chat.form.remaining', { count: remainingLabel(state.model) }) : undefined
          }
          error={errors.model ? t(errors.model) : undefined}
          withAsterisk
          disabled={!state.source}
          data-testid="model-select"
        />
        {pluginsWanted && (
          <MultiSelect
            label={t('chat.form.plugins')}
            placeholder={
              plugins.isLoading ? t('chat.form.loadingPlugins') : t('chat.form.pluginsPlaceholder')
            }
            data={(plugins.data?.items ?? []).map((p) => ({
              value: p.id,
              label: p.manifest?.name_for_human ?? p.namespace ?? p.id,
            }))}
            value={state.plugins}
            onChange={(value) => {
              setErrors((e) => ({ ...e, plugins: undefined }));
              setState((s) => ({ ...s, plugins: value }));
            }}
            renderOption={({ option }) => {
              const plugin = plugins.data?.items.find((p) => p.id === option.value);
              const logo = resolveAssetUrl(plugin?.manifest?.logo_url);
              return (
                <Group gap="xs" wrap="nowrap">
                  <Avatar src={logo} size={20} radius="sm" alt="" />
                  <div>
                    <Text size="sm">{option.label}</Text>
                    <Text size="xs" c="dimmed" lineClamp={2}>
                      {plugin?.manifest?.description_for_human}
                    </Text>
                  </div>
                </Group>
              );
            }}
            rightSection={plugins.isLoading ? <Loader size="xs" /> : undefined}
            error={errors.plugins ? t(errors.plugins) : undefined}
            searchable
            clearable
            data-testid="plugin-select"
          />
        )}
        <Group justify="flex-end">
          <Button variant="default" onClick={onCancel}>
            {t('common.cancel')}
          </Button>
          <Button type="submit">{t('common.confirm')}</Button>
        </Group>
      </Stack>
    </form>
  );
}

export function openNewConversationModal(onConfirm: (form: NewConversationForm) => void): void {
  const id = modals.open({
    title: i18n.t('chat.newConversation'),
    size: 500,
    children: (
      <NewConversationFormView
        onConfirm={(form) => {
          modals.close(id);
          onConfirm(form);
        }}
        onCancel={() => modals.close(id)}
      />
    ),
  });
}
