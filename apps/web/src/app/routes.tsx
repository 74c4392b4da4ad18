import type { QueryClient } from '@tanstack/react-query';
import type { ComponentType } from 'react';
import { Navigate, redirect } from 'react-router';
import type { LoaderFunctionArgs, RouteObject } from 'react-router';
import { ADMIN_PAGES, paths } from '../config/paths';
import { alreadyLoggedInTarget } from '../features/auth';
import { loadAdminStrings } from '../i18n';
import { ensureUser, setLoginFlag } from '../lib/session';
import { loadSessionIfAny, requireAccess } from './guards';
import type { Access } from './guards';
import { RootLayout } from './layout/root-layout';
import { ErrorPage } from './pages/error-page';
import { HomePage } from './pages/home-page';
import { LoginRoute } from './pages/login-route';
import { RedirectPage } from './pages/redirect-page';
import { PageLoader } from './pages/page-loader';
import { RouteError } from './pages/route-error';
import { loadConversationPage, prefetchConversation } from './route-loads';

type LoadPage = (args: LoaderFunctionArgs) => Promise<ComponentType>;

const ADMIN_COMPONENTS: Record<(typeof ADMIN_PAGES)[number], LoadPage> = {
  system: () => import('../features/admin/system/system-page').then((m) => m.SystemPage),
  user: () => import('../features/admin/user/user-page').then((m) => m.UserPage),
  conversation: () =>
    import('../features/admin/conversation/conversation-page').then((m) => m.ConversationPage),
  machine: () => import('../features/admin/machine/machine-page').then((m) => m.MachinePage),
  task: () => import('../features/admin/task/task-page').then((m) => m.TaskPage),
  log: () => import('../features/admin/log/log-page').then((m) => m.LogPage),
  openai_settings: () =>
    import('../features/admin/openai-settings/openai-settings-page').then((m) => m.OpenaiSettingsPage),
  config: () => import('../features/admin/config/config-page').then((m) => m.ConfigPage),
  audit: () => import('../features/admin/audit/audit-page').then((m) => m.AuditPage),
  usage: () => import('../features/admin/usage/usage-page').then((m) => m.UsagePage),
  invite: () => import('../features/admin/invite/invite-page').then((m) => m.InvitePage),
};

/**
 * A protected page whose code is fetched only after its guard let the visitor in: React Router starts a route's
 * `lazy` alongside its loader, so a logged-out visitor would download the chat before being sent to /login.
 */
function guarded(
  client: QueryClient,
  access: Access,
  load: LoadPage,
): Pick<RouteObject, 'loader' | 'Component'> {
  const guard = requireAccess(client, access);
  let Page: ComponentType | null = null;
  return {
    loader: async (args) => {
      const denied = await guard(args);
      if (denied) return denied;
      Page ??= await load(args);
      return null;
    },
    Component: function GuardedPage() {
      return Page ? <Page /> : null;
    },
  };
}

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
        // The loaders redirect before anything renders; the elements say the same (a leaf route without one makes
        // React Router warn, and would render an empty page).
        { index: true, loader: () => redirect(paths.home), element: <Navigate to={paths.home} replace /> },
        { path: 'home', element: <HomePage /> },
        {
          path: 'login',
          element: <LoginRoute />,
          loader: async ({ request }) => {
            // Back from single sign-on: the server opened the session (HttpOnly cookie); mark it on this side.
            if (new URL(request.url).searchParams.get('sso') === 'done') setLoginFlag();
            const user = await ensureUser(client).catch(() => null);
            if (!user) return null;
            return redirect(alreadyLoggedInTarget(new URL(request.url).searchParams.get('redirect')));
          },
        },
        {
          path: 'conversation',
          ...guarded(client, 'user', ({ request }) => {
            prefetchConversation(client, new URL(request.url).searchParams.get('id'));
            return loadConversationPage();
          }),
        },
        {
          path: 'conv/:conversationId',
          ...guarded(client, 'user', () => import('./pages/history-route').then((m) => m.HistoryRoute)),
        },
        {
          // Public: a share link opens without logging in.
          path: 'share/:token',
          lazy: () => import('./pages/share-route').then((m) => ({ Component: m.ShareRoute })),
        },
        {
          // Public: an invite link opens without logging in.
          path: 'invite/:token',
          // Its own chunk: the form's schema (zod) stays off the first load of /login.
          lazy: () =>
            import('../features/auth/components/invite-page').then((m) => ({ Component: m.InviteRoute })),
        },
        {
          path: 'admin',
          ...guarded(client, 'superuser', () =>
            Promise.all([import('./layout/admin-layout'), loadAdminStrings()]).then(([m]) => m.AdminLayout),
          ),
          children: [
            {
              index: true,
              loader: () => redirect(paths.admin('system')),
              element: <Navigate to={paths.admin('system')} replace />,
            },
            // Child loaders run alongside the parent's: each page checks the (cached) user itself.
            ...ADMIN_PAGES.map((page) => ({
              path: page,
              ...guarded(client, 'superuser', ADMIN_COMPONENTS[page]),
            })),
          ],
        },
        { path: 'redirect/*', element: <RedirectPage /> },
        { path: 'error/403', element: <ErrorPage status={403} /> },
        { path: 'error/404', element: <ErrorPage status={404} /> },
        {
          path: '*',
          loader: () => redirect(paths.notFound),
          element: <Navigate to={paths.notFound} replace />,
        },
      ],
    },
  ];
}
