import { MantineProvider } from '@mantine/core';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { cleanup, fireEvent, render, screen } from '@testing-library/react';
import { RouterProvider, createMemoryRouter, useSearchParams } from 'react-router';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { AuthOptions, InviteStatus } from '@cc/contracts';
import { i18n } from '../../../i18n';
import { installDomStubs } from '../../../test/dom-stubs';
import { InviteRoute } from './invite-page';
import { LoginPage } from './login-page';

const json = (status: number, body: unknown) =>
  new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json' } });
const ok = (result: unknown) => json(200, { code: 200, message: 'ok', result });

beforeEach(async () => {
  installDomStubs();
  await i18n.changeLanguage('en-US');
});
afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
});

function LoginAtRoute() {
  const [search] = useSearchParams();
  return <LoginPage search={search} onLoggedIn={() => undefined} />;
}

function renderAt(url: string) {
  const client = new QueryClient({ defaultOptions: { queries: { retry: false } } });
  const router = createMemoryRouter(
    [
      { path: '/invite/:token', element: <InviteRoute /> },
      { path: '/login', element: <LoginAtRoute /> },
    ],
    { initialEntries: [url] },
  );
  render(
    <QueryClientProvider client={client}>
      <MantineProvider>
        <RouterProvider router={router} />
      </MantineProvider>
    </QueryClientProvider>,
  );
  return router;
}

const usable: InviteStatus = {
  usable: true,
  refusal: null,
  expires_at: '2026-12-01T00:00:00.000Z',
  sso_start_path: '/api/auth/oidc/start?invite=tok',
  sso_label: 'Team IdP',
};

describe('InvitePage', () => {
  it('offers the form and the provider; a link used up meanwhile says so', async () => {
    const fetchMock = vi
      .fn()
      .mockResolvedValueOnce(ok(usable))
      .mockResolvedValueOnce(
        json(410, { code: 410, message: 'errors.inviteNotUsable', result: { reason: 'used_up' } }),
      );
    vi.stubGlobal('fetch', fetchMock);
    renderAt('/invite/tok');
    const sso = await screen.findByRole('link', { name: 'Sign in with Team IdP' });
    expect(sso.getAttribute('href')).toBe('/api/auth/oidc/start?invite=tok');
    fireEvent.change(screen.getByLabelText('Username'), { target: { value: 'newbie' } });
    fireEvent.change(screen.getByLabelText('Password', { exact: true }), {
      target: { value: 'secret-pass-1' },
    });
    fireEvent.change(screen.getByLabelText('Repeat the password'), { target: { value: 'secret-pass-2' } });
    fireEvent.click(screen.getByRole('button', { name: 'Create my account' }));
    expect(await screen.findByText('The passwords do not match')).toBeTruthy();
    expect(fetchMock).toHaveBeenCalledTimes(1);
    fireEvent.change(screen.getByLabelText('Repeat the password'), { target: { value: 'secret-pass-1' } });
    fireEvent.click(screen.getByRole('button', { name: 'Create my account' }));
    expect(await screen.findByText('This invite link has been used up.')).toBeTruthy();
    const [url, init] = fetchMock.mock.calls[1] as [string, RequestInit];
    expect(url).toBe('/api/invite/tok');
    expect(JSON.parse(init.body as string)).toEqual({ username: 'newbie', password: 'secret-pass-1' });
  });

  it('names why a link does not work instead of the form', async () => {
    vi.stubGlobal('fetch', vi.fn().mockResolvedValue(ok({ ...usable, usable: false, refusal: 'expired' })));
    renderAt('/invite/tok');
    expect(await screen.findByText('This invite link has expired.')).toBeTruthy();
    expect(screen.queryByRole('button', { name: 'Create my account' })).toBeNull();
  });
});

describe('LoginPage single sign-on', () => {
  it('shows the button when the server offers it, and the reason of a failed sign-in', async () => {
    const options: AuthOptions = { sso: { label: 'Team IdP', start_path: '/api/auth/oidc/start' } };
    vi.stubGlobal('fetch', vi.fn().mockResolvedValue(ok(options)));
    renderAt('/login?sso_error=refused');
    const link = await screen.findByRole('link', { name: 'Sign in with Team IdP' });
    expect(link.getAttribute('href')).toBe('/api/auth/oidc/start');
    expect(screen.getByRole('alert').textContent).toContain('no access here');
  });

  it('shows only the password form when single sign-on is off', async () => {
    const fetchMock = vi.fn().mockResolvedValue(ok({ sso: null }));
    vi.stubGlobal('fetch', fetchMock);
    renderAt('/login');
    await vi.waitFor(() => expect(fetchMock).toHaveBeenCalled());
    expect(screen.queryByRole('link', { name: /Sign in with/ })).toBeNull();
    expect(screen.getByRole('button', { name: 'Log in' })).toBeTruthy();
  });
});
