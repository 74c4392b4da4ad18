import { Button, Group, Stack, TextInput } from '@mantine/core';
import { modals } from '@mantine/modals';
import { notifications } from '@mantine/notifications';
import { useRef, useState } from 'react';
import type { FormEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { i18n } from '../../../i18n';
import { ApiError } from '../../../lib/api-client';
import {
  describeRequestError,
  translateIssue,
  translateResult,
  translateServerMessage,
} from '../../../lib/errors';
import type { Translate } from '../../../lib/errors';
import { useUpdateMe } from '../api/update-me';

/** Why the server refused the new password, in words: the password's issue, else the refusal's message. */
function refusalText(error: ApiError, t: Translate): string {
  const issue = error.issues.find((i) => i.loc?.at(-1) === 'password') ?? error.issues[0];
  if (issue) return translateIssue(String(issue.msg ?? ''), issue.type, t);
  const title = translateServerMessage(error.messageKey, t, error.params);
  const detail = translateResult(error.result, t, error.params);
  return detail ? t('common.labelled', { label: title, text: detail }) : title;
}

/**
 * SPEC §2/§5: a single input, not checked client-side; the rule is shown under it and the server's refusal in
 * its place (one message: the request is not also reported as a toast). A request that got no answer is one toast.
 */
export function ResetPasswordContent({ onDone }: { onDone: () => void }) {
  const { t } = useTranslation();
  const [password, setPassword] = useState('');
  const [error, setError] = useState<string | null>(null);
  const inputRef = useRef<HTMLInputElement>(null);
  const mutation = useUpdateMe({ silent: true });
  const handleSubmit = (event: FormEvent) => {
    event.preventDefault();
    setError(null);
    mutation.mutate(
      { password },
      {
        onSuccess: () => {
          notifications.show({ color: 'green', message: t('profile.resetPasswordSuccess'), autoClose: 3000 });
          onDone();
        },
        onError: (failure) => {
          if (failure instanceof ApiError) {
            setError(refusalText(failure, t));
            // The busy button had the focus: back to the password, to be typed again.
            inputRef.current?.focus();
            inputRef.current?.select();
            return;
          }
          const { title, message, autoClose } = describeRequestError(failure, t);
          notifications.show({
            color: 'red',
            title: t('profile.resetPasswordFailed'),
            message: message ? t('common.labelled', { label: title, text: message }) : title,
            autoClose,
          });
        },
      },
    );
  };
  return (
    <form onSubmit={handleSubmit}>
      <Stack>
        <TextInput
          ref={inputRef}
          type="password"
          label={t('profile.newPassword')}
          description={t('validation.passwordRule')}
          autoComplete="new-password"
          value={password}
          onChange={(e) => {
            setPassword(e.currentTarget.value);
            setError(null);
          }}
          error={error}
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
