import { Alert, Button, Divider, PasswordInput, TextInput } from '@mantine/core';
import { notifications } from '@mantine/notifications';
import { useState } from 'react';
import type { FormEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { useNavigate, useParams } from 'react-router';
import { InviteAccept } from '@cc/contracts';
import { paths } from '../../../config/paths';
import { ApiError } from '../../../lib/api-client';
import { useAcceptInvite } from '../api/accept-invite';
import { useInvite } from '../api/get-invite';
import { AuthCard, AuthFrame } from './auth-frame';

type Field = 'username' | 'password' | 'confirm';
type FieldErrors = Partial<Record<Field, string>>;

/** Why a link does not work, in words (`result.reason` of the server's refusal, or the status's `refusal`). */
function refusalKey(reason: unknown): string {
  return `auth.invite.refusals.${typeof reason === 'string' ? reason : 'unknown'}`;
}

/** `/invite/{token}`: a person chooses a username and password and gets an account; or signs in with the provider. */
export function InviteRoute() {
  const { token = '' } = useParams();
  return <InvitePage key={token} token={token} />;
}

function InvitePage({ token }: { token: string }) {
  const { t } = useTranslation();
  const navigate = useNavigate();
  const invite = useInvite(token);
  const accept = useAcceptInvite();
  const [username, setUsername] = useState('');
  const [password, setPassword] = useState('');
  const [confirm, setConfirm] = useState('');
  const [errors, setErrors] = useState<FieldErrors>({});
  const [failure, setFailure] = useState<string | null>(null);

  const handleSubmit = (event: FormEvent) => {
    event.preventDefault();
    if (accept.isPending) return;
    const parsed = InviteAccept.safeParse({ username: username.trim(), password });
    const next: FieldErrors = {};
    if (!parsed.success) {
      for (const issue of parsed.error.issues) {
        const field = issue.path[0];
        if ((field === 'username' || field === 'password') && !next[field]) next[field] = t(issue.message);
      }
    }
    if (password !== confirm) next.confirm = t('auth.invite.mismatch');
    setErrors(next);
    if (!parsed.success || next.confirm) return;
    setFailure(null);
    accept.mutate(
      { token, account: parsed.data },
      {
        onSuccess: () => {
          notifications.show({ color: 'green', message: t('auth.invite.created'), autoClose: 5000 });
          void navigate(paths.login(), { replace: true });
        },
        onError: (error) => {
          if (error instanceof ApiError && error.code === 410)
            setFailure(t(refusalKey((error.result as { reason?: unknown } | null)?.reason)));
          else if (error instanceof ApiError && error.code === 409)
            setErrors({ username: t('auth.invite.usernameTaken') });
          else if (error instanceof ApiError && error.issues.length > 0)
            setErrors({ username: t(error.issues[0]?.msg ?? 'errors.invalidParams') });
          else setFailure(error instanceof ApiError ? t(error.messageKey) : t('errors.unknownError'));
        },
      },
    );
  };

  const status = invite.data;
  const refusal = invite.isError ? 'unknown' : status && !status.usable ? status.refusal : null;

  return (
    <AuthFrame subtitle={t('auth.invite.subtitle')}>
      {refusal ? (
        <Alert color="red" w={360} maw="100%" role="alert">
          {t(refusalKey(refusal))}
        </Alert>
      ) : (
        <AuthCard onSubmit={handleSubmit}>
          {failure && (
            <Alert color="red" role="alert">
              {failure}
            </Alert>
          )}
          <TextInput
            label={t('auth.username')}
            autoComplete="username"
            value={username}
            onChange={(e) => setUsername(e.currentTarget.value)}
            error={errors.username}
            name="username"
            disabled={!status}
          />
          <PasswordInput
            label={t('auth.password')}
            description={t('validation.passwordRule')}
            autoComplete="new-password"
            value={password}
            onChange={(e) => setPassword(e.currentTarget.value)}
            error={errors.password}
            name="password"
            disabled={!status}
          />
          <PasswordInput
            label={t('auth.invite.confirm')}
            autoComplete="new-password"
            value={confirm}
            onChange={(e) => setConfirm(e.currentTarget.value)}
            error={errors.confirm}
            name="confirm"
            disabled={!status}
          />
          <Button type="submit" fullWidth loading={accept.isPending} disabled={!status}>
            {t('auth.invite.create')}
          </Button>
          {status?.sso_start_path && (
            <>
              <Divider label={t('auth.sso.or')} labelPosition="center" />
              <Button component="a" href={status.sso_start_path} variant="default" fullWidth>
                {t('auth.sso.signInWith', { provider: status.sso_label ?? '' })}
              </Button>
            </>
          )}
        </AuthCard>
      )}
    </AuthFrame>
  );
}
