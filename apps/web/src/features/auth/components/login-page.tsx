import { Alert, Button, Divider, Stack } from '@mantine/core';
import { useTranslation } from 'react-i18next';
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

/**
 * Where a visitor who is already logged in goes from /login: the redirect query when it is a local path, else the chat.
 */
export function alreadyLoggedInTarget(redirect: string | null): string {
  return isSafeRedirect(redirect) && !redirect.startsWith('/login') ? redirect : paths.conversation();
}

/** The reasons the server gives when single sign-on did not work (`?sso_error=`). */
const SSO_ERRORS = ['unavailable', 'refused', 'failed', 'invite'];

interface Props {
  /** The page's query (`redirect`, `sso_error`). */
  search: URLSearchParams;
  /** Logged in: go to `target`. */
  onLoggedIn: (user: UserRead, target: string) => void;
}

/**
 * The login page's content. It needs neither the router nor the query cache: the app shows it at /login after a
 * client-side redirect, and /login opened directly is a small page of its own (login-main.tsx) around it.
 */
export function LoginPage({ search, onLoggedIn }: Props) {
  const { t } = useTranslation();
  const sso = useAuthOptions()?.sso ?? null;
  const ssoError = search.get('sso_error');

  return (
    <AuthFrame subtitle={t('auth.subtitle')}>
      {ssoError && (
        <Alert color="red" w={360} maw="100%" role="alert">
          {t(`auth.sso.errors.${SSO_ERRORS.includes(ssoError) ? ssoError : 'failed'}`)}
        </Alert>
      )}
      <LoginForm onSuccess={(user) => onLoggedIn(user, postLoginTarget(search.get('redirect'), user))} />
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
