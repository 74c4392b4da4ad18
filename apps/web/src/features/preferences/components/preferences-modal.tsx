import { Button, Group, Select, Stack, Switch } from '@mantine/core';
import { modals } from '@mantine/modals';
import { notifications } from '@mantine/notifications';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { i18n } from '../../../i18n';
import { SEND_KEYS, getPreference, setPreference } from '../../../lib/preferences';
import type { Preference } from '../../../lib/preferences';

/** SPEC §3/§4: edits a draft; the preference applies only on confirm, with a success message. */
export function PreferencesContent({ onDone }: { onDone: () => void }) {
  const { t } = useTranslation();
  const [draft, setDraft] = useState<Preference>(getPreference);
  const toggle =
    (key: 'renderUserMessageInMd' | 'codeAutoWrap' | 'widerConversationPage') => (checked: boolean) =>
      setDraft((d) => ({ ...d, [key]: checked }));
  const handleConfirm = () => {
    setPreference(draft);
    notifications.show({ color: 'green', message: t('preferences.saved'), autoClose: 3000 });
    onDone();
  };
  return (
    <Stack>
      <Select
        label={t('preferences.sendKey')}
        data={SEND_KEYS.map((key) => ({ value: key, label: key }))}
        value={draft.sendKey}
        onChange={(value) => value && setDraft((d) => ({ ...d, sendKey: value }))}
        allowDeselect={false}
        comboboxProps={{ withinPortal: true }}
        data-testid="pref-send-key"
      />
      <Switch
        label={t('preferences.renderUserMessageInMd')}
        checked={draft.renderUserMessageInMd}
        onChange={(e) => toggle('renderUserMessageInMd')(e.currentTarget.checked)}
      />
      <Switch
        label={t('preferences.codeAutoWrap')}
        checked={draft.codeAutoWrap}
        onChange={(e) => toggle('codeAutoWrap')(e.currentTarget.checked)}
      />
      <Switch
        label={t('preferences.widerConversationPage')}
        checked={draft.widerConversationPage}
        onChange={(e) => toggle('widerConversationPage')(e.currentTarget.checked)}
      />
      <Group justify="flex-end">
        <Button variant="default" onClick={onDone}>
          {t('common.cancel')}
        </Button>
        <Button onClick={handleConfirm}>{t('common.confirm')}</Button>
      </Group>
    </Stack>
  );
}

export function openPreferencesModal(): void {
  const id = modals.open({
    title: i18n.t('preferences.title'),
    children: <PreferencesContent onDone={() => modals.close(id)} />,
  });
}
