import { act, cleanup, render, screen } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createMemoryRouter, RouterProvider } from 'react-router';
import type { DataRouter } from 'react-router';
import { createQueryClient } from '../lib/query-client';
import { setLoginFlag, clearLoginFlag } from '../lib/session';
import { installDomStubs } from '../test/dom-stubs';
import { AppProviders } from './providers';
import { createRoutes } from './routes';

// Records when the chat page's code is fetched (the module is evaluated once per file).
const pageCode = vi.hoisted(() => ({ loaded: [] as string[] }));
vi.mock('./pages/conversation-route', () => {
  pageCode.loaded.push('conversation-route');
  return { ConversationRoute: () => <div data-testid="chat-page" /> };
});

beforeEach(installDomStubs);

afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
  clearLoginFlag();
});

function user(isSuperuser: boolean) {
  return { id: 1, username: 'ann', nickname: 'Ann', is_superuser: isSuperuser, setting: {} };
}

function stubMe(result: unknown, code = 200) {
  vi.stubGlobal(
    'fetch',
    vi.fn(async (url: string) => {
      if (String(url).startsWith('/api/user/me')) {
        return new Response(
          JSON.stringify({ code, message: code === 200 ? 'ok' : 'errors.loginExpired', result }),
          {
            status: code === 200 ? 200 : 401,
          },
        );
      }
      return new Response(JSON.stringify({ code: 200, message: 'ok', result: [] }), { status: 200 });
    }),
  );
}

function renderAt(path: string) {
  const client = createQueryClient();
  const router = createMemoryRouter(createRoutes(client), { initialEntries: [path] });
  render(
    <AppProviders client={client}>
      <RouterProvider router={router} />
    </AppProviders>,
  );
  return router;
}

/**
 * Resolves once the router is done with its navigation (loaders, redirects, lazy route modules) and React has
 * rendered the result. This waits on work, not on a clock: a lazy route's first import is transformed on demand
 * and can take longer than waitFor's 1 s default on a busy machine (which made these tests fail under load).
 */
async function settled(router: DataRouter): Promise<void> {
  const idle = (s: DataRouter['state']) =>
    s.initialized && s.navigation.state === 'idle' && s.revalidation === 'idle';
  await act(
    () =>
      new Promise<void>((resolve) => {
        if (idle(router.state)) {
          resolve();
          return;
        }
        const unsubscribe = router.subscribe((state) => {
          if (!idle(state)) return;
          unsubscribe();
          resolve();
        });
      }),
  );
}

describe('routes and guards', () => {
  it('sends a visitor to login with the target as redirect query', async () => {
    stubMe(null, 10401);
    const router = renderAt('/conversation?id=abc');
    await settled(router);
    expect(router.state.location.pathname).toBe('/login');
    expect(router.state.location.search).toBe(`?redirect=${encodeURIComponent('/conversation?id=abc')}`);
  });

  it('fetches none of the chat page before a logged-out visitor is sent to login, and fetches it for a user', async () => {
    stubMe(null, 10401);
    const visitor = renderAt('/conversation?id=abc');
    await settled(visitor);
    expect(visitor.state.location.pathname).toBe('/login');
    expect(pageCode.loaded).toEqual([]);
    cleanup();

    setLoginFlag();
    stubMe(user(false));
    await settled(renderAt('/conversation'));
    expect(screen.getByTestId('chat-page')).toBeTruthy();
    expect(pageCode.loaded).toEqual(['conversation-route']);
  });

  it('logs out and goes to login when the user cannot be fetched', async () => {
    setLoginFlag();
    stubMe(null, 10401);
    const router = renderAt('/conversation');
    await settled(router);
    expect(router.state.location.pathname).toBe('/login');
    expect(localStorage.getItem('loginExpiresAt')).toBeNull();
  });

  it('sends a non-superuser away from /admin to /error/403', async () => {
    setLoginFlag();
    stubMe(user(false));
    const router = renderAt('/admin/user');
    await settled(router);
    expect(router.state.location.pathname).toBe('/error/403');
    expect(screen.getByTestId('error-status')).toHaveProperty('textContent', '403');
  });

  it('redirects /admin to /admin/system for a superuser', async () => {
    setLoginFlag();
    stubMe(user(true));
    const router = renderAt('/admin');
    await settled(router);
    expect(router.state.location.pathname).toBe('/admin/system');
  });

  it('redirects / to /home and unknown paths to /error/404', async () => {
    stubMe(null, 10401);
    const router = renderAt('/');
    await settled(router);
    expect(router.state.location.pathname).toBe('/home');
    await act(() => router.navigate('/what/ever'));
    await settled(router);
    expect(router.state.location.pathname).toBe('/error/404');
  });

  it('opens /, /admin and an unknown path without React Router warning of a leaf route with no element', async () => {
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => undefined);
    try {
      stubMe(user(true));
      setLoginFlag();
      for (const path of ['/', '/admin', '/what/ever']) {
        const router = renderAt(path);
        await settled(router);
        expect(router.state.location.pathname).not.toBe(path);
        cleanup();
      }
      const leafWarnings = warn.mock.calls.filter((args) => /does not have an element/.test(String(args[0])));
      expect(leafWarnings).toEqual([]);
    } finally {
      warn.mockRestore();
    }
  });

  it('shows the not-logged-in label to visitors', async () => {
    stubMe(null, 10401);
    await settled(renderAt('/home'));
    expect(screen.getByTestId('not-logged-in')).toBeTruthy();
    expect(screen.getByTestId('app-version').textContent).toBe('v1.0.1');
  });

  it('greets a logged-in user by nickname and offers the user menu', async () => {
    setLoginFlag();
    stubMe(user(false));
    await settled(renderAt('/home'));
    expect(screen.getByTestId('greeting').textContent).toContain('Ann');
    expect(screen.getByTestId('user-menu')).toBeTruthy();
    expect(screen.queryByTestId('not-logged-in')).toBeNull();
  });

  it('the redirect page replaces itself with its path', async () => {
    stubMe(null, 10401);
    const router = renderAt('/redirect/error/403');
    // First the redirect page renders; its <Navigate> then starts the navigation to its path.
    await settled(router);
    await settled(router);
    expect(router.state.location.pathname).toBe('/error/403');
  });

  it('navigating between admin pages starts each page at the top of its scroll container', async () => {
    setLoginFlag();
    stubMe(user(true));
    const router = renderAt('/admin/user');
    await settled(router);
    const content = document.querySelector<HTMLElement>('.cc-admin-content');
    const main = document.getElementById('app-main');
    expect(content).not.toBeNull();
    expect(main).not.toBeNull();
    // The list was scrolled to its bottom; the admin layout (and its container) stays mounted across pages.
    content!.scrollTop = 900;
    main!.scrollTop = 300;
    await act(() => router.navigate('/admin/task'));
    await settled(router);
    expect(router.state.location.pathname).toBe('/admin/task');
    expect(document.querySelector('.cc-admin-content')).toBe(content);
    expect(content!.scrollTop).toBe(0);
    expect(main!.scrollTop).toBe(0);
    content!.scrollTop = 500;
    await act(() => router.navigate('/admin/user'));
    await settled(router);
    expect(content!.scrollTop).toBe(0);
  });
});
