import { notifications } from '@mantine/notifications';
import { useQueryClient } from '@tanstack/react-query';
import { useEffect } from 'react';
import { useTranslation } from 'react-i18next';
import { useNavigate, useSearchParams } from 'react-router';
import { LoginPage } from '../../features/auth';
import { takeLoginNotice } from '../../lib/login-notice';
import { queryKeys } from '../../lib/query-keys';

function showLoggedIn(message: string): void {
  notifications.show({ color: 'green', message, autoClose: 3000 });
}

/** /login inside the app (after a client-side redirect): logging in fills the cache and navigates. */
export function LoginRoute() {
  const { t } = useTranslation();
  const navigate = useNavigate();
  const client = useQueryClient();
  const [params] = useSearchParams();
  return (
    <LoginPage
      search={params}
      onLoggedIn={(user, target) => {
        client.clear();
        client.setQueryData(queryKeys.me, user);
        showLoggedIn(t('auth.loginSuccess'));
        void navigate(target, { replace: true });
      }}
    />
  );
}

/** Shows the notice the standalone login page left before it navigated here. */
export function LoginNotice() {
  const { t } = useTranslation();
  useEffect(() => {
    if (takeLoginNotice()) showLoggedIn(t('auth.loginSuccess'));
  }, [t]);
  return null;
}
