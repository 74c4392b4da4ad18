import { cleanup, render, screen, waitFor } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createMemoryRouter, RouterProvider } from 'react-router';
import { createQueryClient } from '../lib/query-client';
import { setLoginFlag, clearLoginFlag } from '../lib/session';
import { AppProviders } from './providers';
import { createRoutes } from './routes';

// jsdom lacks these; Mantine reads them.
beforeEach(() => {
  Object.defineProperty(window, 'matchMedia', {
    configurable: true,
    writable: true,
    value: (query: string) => ({
      matches: false,
      media: query,
      onchange: null,
      addListener: () => undefined,
      removeListener: () => undefined,
      addEventListener: () => undefined,
      removeEventListener: () => undefined,
      dispatchEvent: () => false,
    }),
  });
  window.ResizeObserver ??= class {
    observe() {}
    unobserve() {}
    disconnect() {}
  } as unknown as typeof ResizeObserver;
});

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

describe('routes and guards', () => {
  it('sends a visitor to login with the target as redirect query', async () => {
    stubMe(null, 10401);
    const router = renderAt('/conversation?id=abc');
    await waitFor(() => expect(router.state.location.pathname).toBe('/login'));
    expect(router.state.location.search).toBe(`?redirect=${encodeURIComponent('/conversation?id=abc')}`);
  });

  it('logs out and goes to login when the user cannot be fetched', async () => {
    setLoginFlag();
    stubMe(null, 10401);
    const router = renderAt('/conversation');
    await waitFor(() => expect(router.state.location.pathname).toBe('/login'));
    expect(localStorage.getItem('loginExpiresAt')).toBeNull();
  });

  it('sends a non-superuser away from /admin to /error/403', async () => {
    setLoginFlag();
    stubMe(user(false));
    const router = renderAt('/admin/user');
    await waitFor(() => expect(router.state.location.pathname).toBe('/error/403'));
    expect(await screen.findByTestId('error-status')).toHaveProperty('textContent', '403');
  });

  it('redirects /admin to /admin/system for a superuser', async () => {
    setLoginFlag();
    stubMe(user(true));
    const router = renderAt('/admin');
    await waitFor(() => expect(router.state.location.pathname).toBe('/admin/system'));
  });

  it('redirects / to /home and unknown paths to /error/404', async () => {
    stubMe(null, 10401);
    const router = renderAt('/');
    await waitFor(() => expect(router.state.location.pathname).toBe('/home'));
    await router.navigate('/what/ever');
    await waitFor(() => expect(router.state.location.pathname).toBe('/error/404'));
  });

  it('shows the not-logged-in label to visitors', async () => {
    stubMe(null, 10401);
    renderAt('/home');
    expect(await screen.findByTestId('not-logged-in')).toBeTruthy();
    expect(screen.getByTestId('app-version').textContent).toBe('v1.0.1');
  });

  it('greets a logged-in user by nickname and offers the user menu', async () => {
    setLoginFlag();
    stubMe(user(false));
    renderAt('/home');
    expect((await screen.findByTestId('greeting')).textContent).toContain('Ann');
    expect(screen.getByTestId('user-menu')).toBeTruthy();
    expect(screen.queryByTestId('not-logged-in')).toBeNull();
  });

  it('the redirect page replaces itself with its path', async () => {
    stubMe(null, 10401);
    const router = renderAt('/redirect/error/403');
    await waitFor(() => expect(router.state.location.pathname).toBe('/error/403'));
  });
});
