import { notifications } from '@mantine/notifications';
import type { QueryClient } from '@tanstack/react-query';
import { redirect } from 'react-router';
import type { LoaderFunctionArgs } from 'react-router';
import { paths } from '../config/paths';
import { i18n } from '../i18n';
import { ensureUser } from '../lib/session';

export type Access = 'user' | 'superuser';

function targetOf(request: Request): string {
  const url = new URL(request.url);
  return url.pathname + url.search;
}

/**
 * SPEC §4/§5 route guard, run as a loader on every navigation to a protected route: loads the user when the
 * login flag says we are logged in (a failure logs out); no user → login with the target as redirect query and
 * "User not logged in"; wrong role → /error/403.
 */
export function requireAccess(client: QueryClient, access: Access) {
  return async ({ request }: LoaderFunctionArgs) => {
    const target = targetOf(request);
    let user;
    try {
      user = await ensureUser(client);
    } catch {
      user = null;
    }
    if (!user) {
      notifications.show({
        id: 'not-logged-in',
        color: 'yellow',
        message: i18n.t('errors.userNotLogin'),
        autoClose: 3000,
      });
      return redirect(paths.login(target));
    }
    if (access === 'superuser' && !user.is_superuser) return redirect(paths.forbidden);
    return null;
  };
}

/** Every other route: refresh the user when logged in, never blocking an anonymous page. */
export function loadSessionIfAny(client: QueryClient) {
  return async () => {
    await ensureUser(client).catch(() => null);
    return null;
  };
}
