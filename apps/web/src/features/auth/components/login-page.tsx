import { Alert, Button, Divider, Stack } from '@mantine/core';
import { notifications } from '@mantine/notifications';
import { useTranslation } from 'react-i18next';
import { useNavigate, useSearchParams } from 'react-router';
import type { UserRead } from '@cc/contracts';
import { isSafeRedirect, paths } from '../../../config/paths';
import { useAuthOptions } from '../api/get-auth-options';
import { LoginForm } from './login-form';
import { AuthFrame } from './auth-frame';

/** Where to go after logging in: the redirect query when it is a local path, else the user's home. */
export function postLoginTarget(redirect: string | null, user: Pick<UserRead, 'is_superuser'>): string {
  if (isSafeRedirect(redirect) && !redirect.startsWith('/login')) return redirect;
  return user.is_superuser ? paths.admin() : paths.conversation();
}

/** The reasons the server gives when single sign-on did not work (`?sso_error=`). */
const SSO_ERRORS = ['unavailable', 'refused', 'failed', 'invite'];

export function LoginPage() {
  const { t } = useTranslation();
  const navigate = useNavigate();
  const [params] = useSearchParams();
  const options = useAuthOptions();
  const sso = options.data?.sso ?? null;
  const ssoError = params.get('sso_error');

  const handleSuccess = (user: UserRead) => {
    notifications.show({ color: 'green', message: t('auth.loginSuccess'), autoClose: 3000 });
    void navigate(postLoginTarget(params.get('redirect'), user), { replace: true });
  };

  return (
    <AuthFrame subtitle={t('auth.subtitle')}>
      {ssoError && (
        <Alert color="red" w={360} maw="100%" role="alert">
          {t(`auth.sso.errors.${SSO_ERRORS.includes(ssoError) ? ssoError : 'failed'}`)}
        </Alert>
      )}
      <LoginForm onSuccess={handleSuccess} />
      {sso && (
        <Stack w={360} maw="100%" gap="sm">
          <Divider label={t('auth.sso.or')} labelPosition="center" />
          {/* A full-page navigation: the provider's page replaces this one and sends the browser back. */}
          <Button component="a" href={sso.start_path} variant="default" fullWidth>
            {t('auth.sso.signInWith', { provider: sso.label })}
          </Button>
        </Stack>
      )}
    </AuthFrame>
  );
}
