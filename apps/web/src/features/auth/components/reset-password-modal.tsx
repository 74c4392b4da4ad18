import { Button, Group, Stack, TextInput } from '@mantine/core';
import { modals } from '@mantine/modals';
import { notifications } from '@mantine/notifications';
import { useState } from 'react';
import type { FormEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { i18n } from '../../../i18n';
import { useUpdateMe } from '../api/update-me';

/** SPEC §2/§5: a single input, not checked client-side; the server answers with its own rule message. */
export function ResetPasswordContent({ onDone }: { onDone: () => void }) {
  const { t } = useTranslation();
  const [password, setPassword] = useState('');
  const mutation = useUpdateMe();
  const handleSubmit = (event: FormEvent) => {
    event.preventDefault();
    mutation.mutate(
      { password },
      {
        onSuccess: () => {
          notifications.show({ color: 'green', message: t('profile.resetPasswordSuccess'), autoClose: 3000 });
          onDone();
        },
        onError: () => {
          notifications.show({ color: 'red', message: t('profile.resetPasswordFailed'), autoClose: 3000 });
        },
      },
    );
  };
  return (
    <form onSubmit={handleSubmit}>
      <Stack>
        <TextInput
          type="password"
          label={t('profile.newPassword')}
          autoComplete="new-password"
          value={password}
          onChange={(e) => setPassword(e.currentTarget.value)}
          data-autofocus
        />
        <Group justify="flex-end">
          <Button variant="default" onClick={onDone}>
            {t('common.cancel')}
          </Button>
          <Button type="submit" loading={mutation.isPending}>
            {t('common.confirm')}
          </Button>
        </Group>
      </Stack>
    </form>
  );
}

export function openResetPasswordModal(): void {
  const id = modals.open({
    title: i18n.t('profile.resetPassword'),
    children: <ResetPasswordContent onDone={() => modals.close(id)} />,
  });
}
