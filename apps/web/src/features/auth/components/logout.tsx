import { Text } from '@mantine/core';
import { modals } from '@mantine/modals';
import { notifications } from '@mantine/notifications';
import { i18n } from '../../../i18n';
import { queryClient } from '../../../lib/query-client';
import { clearLocalSession } from '../../../lib/session';
import { logout } from '../api/logout';

/** Logs out on the server (best effort) and forgets the local session. */
export async function performLogout(): Promise<void> {
  await logout();
  clearLocalSession(queryClient);
}

/** SPEC §4: confirm, clear the session, show the success message, go to login. */
export function confirmLogout(goToLogin: () => void): void {
  modals.openConfirmModal({
    title: i18n.t('auth.logout'),
    children: <Text size="sm">{i18n.t('auth.logoutConfirm')}</Text>,
    labels: { confirm: i18n.t('auth.logout'), cancel: i18n.t('common.cancel') },
    confirmProps: { color: 'red' },
    onConfirm: () => {
      void performLogout().then(() => {
        notifications.show({ color: 'green', message: i18n.t('auth.logoutSuccess'), autoClose: 3000 });
        goToLogin();
      });
    },
  });
}
