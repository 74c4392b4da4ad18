import type { QueryClient } from '@tanstack/react-query';
import { redirect } from 'react-router';
import type { RouteObject } from 'react-router';
import { ADMIN_PAGES, isSafeRedirect, paths } from '../config/paths';
import { InviteRoute, LoginPage } from '../features/auth';
import { ensureUser, setLoginFlag } from '../lib/session';
import { loadSessionIfAny, requireAccess } from './guards';
import { RootLayout } from './layout/root-layout';
import { ErrorPage } from './pages/error-page';
import { HomePage } from './pages/home-page';
import { RedirectPage } from './pages/redirect-page';
import { PageLoader } from './pages/page-loader';
import { RouteError } from './pages/route-error';

const ADMIN_COMPONENTS: Record<
  (typeof ADMIN_PAGES)[number],
  () => Promise<{ Component: React.ComponentType }>
> = {
  system: () => import('../features/admin/system/system-page').then((m) => ({ Component: m.SystemPage })),
  user: () => import('../features/admin/user/user-page').then((m) => ({ Component: m.UserPage })),
  conversation: () =>
    import('../features/admin/conversation/conversation-page').then((m) => ({
      Component: m.ConversationPage,
    })),
  machine: () => import('../features/admin/machine/machine-page').then((m) => ({ Component: m.MachinePage })),
  task: () => import('../features/admin/task/task-page').then((m) => ({ Component: m.TaskPage })),
  log: () => import('../features/admin/log/log-page').then((m) => ({ Component: m.LogPage })),
  openai_settings: () =>
    import('../features/admin/openai-settings/openai-settings-page').then((m) => ({
      Component: m.OpenaiSettingsPage,
    })),
  config: () => import('../features/admin/config/config-page').then((m) => ({ Component: m.ConfigPage })),
  audit: () => import('../features/admin/audit/audit-page').then((m) => ({ Component: m.AuditPage })),
  usage: () => import('../features/admin/usage/usage-page').then((m) => ({ Component: m.UsagePage })),
  invite: () => import('../features/admin/invite/invite-page').then((m) => ({ Component: m.InvitePage })),
};

/** SPEC §2 route table with the §5 guards. Chat, history and admin pages load as separate chunks. */
export function createRoutes(client: QueryClient): RouteObject[] {
  return [
    {
      path: '/',
      element: <RootLayout />,
      errorElement: <RouteError />,
      hydrateFallbackElement: <PageLoader />,
      // Runs on every navigation so a logged-in visitor's user is loaded everywhere (SPEC §4).
      loader: loadSessionIfAny(client),
      shouldRevalidate: () => true,
      children: [
        { index: true, loader: () => redirect(paths.home) },
        { path: 'home', element: <HomePage /> },
        {
          path: 'login',
          element: <LoginPage />,
          loader: async ({ request }) => {
            // Back from single sign-on: the server opened the session (HttpOnly cookie); mark it on this side.
            if (new URL(request.url).searchParams.get('sso') === 'done') setLoginFlag();
            const user = await ensureUser(client).catch(() => null);
            if (!user) return null;
            const target = new URL(request.url).searchParams.get('redirect');
            return redirect(
              isSafeRedirect(target) && !target.startsWith('/login') ? target : paths.conversation(),
            );
          },
        },
        {
          path: 'conversation',
          loader: requireAccess(client, 'user'),
          lazy: () => import('./pages/conversation-route').then((m) => ({ Component: m.ConversationRoute })),
        },
        {
          path: 'conv/:conversationId',
          loader: requireAccess(client, 'user'),
          lazy: () => import('./pages/history-route').then((m) => ({ Component: m.HistoryRoute })),
        },
        {
          // Public: a share link opens without logging in.
          path: 'share/:token',
          lazy: () => import('./pages/share-route').then((m) => ({ Component: m.ShareRoute })),
        },
        {
          // Public: an invite link opens without logging in.
          path: 'invite/:token',
          element: <InviteRoute />,
        },
        {
          path: 'admin',
          loader: requireAccess(client, 'superuser'),
          lazy: () => import('./layout/admin-layout').then((m) => ({ Component: m.AdminLayout })),
          children: [
            { index: true, loader: () => redirect(paths.admin('system')) },
            ...ADMIN_PAGES.map((page) => ({ path: page, lazy: ADMIN_COMPONENTS[page] })),
          ],
        },
        { path: 'redirect/*', element: <RedirectPage /> },
        { path: 'error/403', element: <ErrorPage status={403} /> },
        { path: 'error/404', element: <ErrorPage status={404} /> },
        { path: '*', loader: () => redirect(paths.notFound) },
      ],
    },
  ];
}
