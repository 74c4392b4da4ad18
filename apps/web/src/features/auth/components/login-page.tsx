import { Center, Stack, Text, Title } from '@mantine/core';
import { notifications } from '@mantine/notifications';
import { useTranslation } from 'react-i18next';
import { useNavigate, useSearchParams } from 'react-router';
import type { UserRead } from '@cc/contracts';
import { isSafeRedirect, paths } from '../../../config/paths';
import { LoginForm } from './login-form';

/** Where to go after logging in: the redirect query when it is a local path, else the user's home. */
export function postLoginTarget(redirect: string | null, user: Pick<UserRead, 'is_superuser'>): string {
  if (isSafeRedirect(redirect) && !redirect.startsWith('/login')) return redirect;
  return user.is_superuser ? paths.admin() : paths.conversation();
}

export function LoginPage() {
  const { t } = useTranslation();
  const navigate = useNavigate();
  const [params] = useSearchParams();

  const handleSuccess = (user: UserRead) => {
    notifications.show({ color: 'green', message: t('auth.loginSuccess'), autoClose: 3000 });
    void navigate(postLoginTarget(params.get('redirect'), user), { replace: true });
  };

  return (
    <Center mih="100%" py="xl" px="md">
      <Stack align="center" gap="lg" w="100%">
        <Title order={1} className="cc-brand-title">
          Chat Commons
        </Title>
        <Text c="dimmed" ta="center">
          {t('auth.subtitle')}
        </Text>
        <LoginForm onSuccess={handleSuccess} />
      </Stack>
    </Center>
  );
}
