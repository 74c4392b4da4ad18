import { Text } from '@mantine/core';
import { modals } from '@mantine/modals';
import { notifications } from '@mantine/notifications';
import { useEffect } from 'react';
import { useTranslation } from 'react-i18next';
import { useLocation, useNavigate } from 'react-router';
import { paths } from '../config/paths';
import { performLogout } from '../features/auth';
import { onRequestError } from '../lib/api-client';
import { describeRequestError } from '../lib/errors';

let dialogOpen = false;

/** Shows every failed request as a toast (SPEC §8) and opens the login-expired dialog on 10401. */
export function RequestErrorBridge() {
  const { t } = useTranslation();
  const navigate = useNavigate();
  const location = useLocation();
  const here = location.pathname + location.search;

  useEffect(
    () =>
      onRequestError(({ error, toast, authDialog }) => {
        if (toast) {
          const { title, message, autoClose } = describeRequestError(error, t);
          notifications.show({
            color: 'red',
            title: message ? title : undefined,
            message: message || title,
            autoClose,
          });
        }
        if (authDialog && !dialogOpen) {
          dialogOpen = true;
          modals.openConfirmModal({
            title: t('auth.loginExpiredTitle'),
            children: <Text size="sm">{t('auth.loginExpiredContent')}</Text>,
            labels: { confirm: t('auth.goToLogin'), cancel: t('auth.stayOnPage') },
            onConfirm: () => {
              void performLogout().then(() => navigate(paths.login(here)));
            },
            onClose: () => {
              dialogOpen = false;
            },
          });
        }
      }),
    [t, navigate, here],
  );
  return null;
}
