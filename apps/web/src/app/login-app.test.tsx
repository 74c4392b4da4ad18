import { cleanup, fireEvent, render, screen, waitFor } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { i18n } from '../i18n';
import { takeLoginNotice } from '../lib/login-notice';
import { clearLoginFlag, hasLoginFlag, setLoginFlag } from '../lib/session-flag';
import { installDomStubs } from '../test/dom-stubs';
import { LoginApp } from './login-app';

const json = (status: number, body: unknown) =>
  new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json' } });
const ok = (result: unknown) => json(200, { code: 200, message: 'ok', result });
const USER = { id: 2, username: 'ada', nickname: 'Ada', is_superuser: 0 };

/** Answers by method and path; anything else fails the test. */
function serve(routes: Record<string, () => Response>) {
  const fetchMock = vi.fn((input: string, init?: RequestInit) => {
    const url = new URL(input, 'http://localhost');
    const key = `${init?.method ?? 'GET'} ${url.pathname}`;
    const answer = routes[key];
    if (!answer) throw new Error(`unexpected ${key}`);
    return Promise.resolve(answer());
  });
  vi.stubGlobal('fetch', fetchMock);
  return fetchMock;
}

function open(url: string) {
  window.history.replaceState(null, '', url);
  const leave = vi.fn();
  render(<LoginApp leaveFor={leave} />);
  return leave;
}

beforeEach(async () => {
  installDomStubs();
  await i18n.changeLanguage('en-US');
});
afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
  clearLoginFlag();
  takeLoginNotice();
});

describe('the login page of its own', () => {
  it('shows the header a visitor sees and the form, without asking who is logged in', async () => {
    const fetchMock = serve({ 'GET /api/auth/options': () => ok({ sso: null }) });
    open('/login');
    expect(screen.getByTestId('app-name').textContent).toBe('Chat Commons');
    expect(screen.getByTestId('app-version')).toBeTruthy();
    expect(screen.getByTestId('not-logged-in')).toBeTruthy();
    expect(screen.getByRole('button', { name: 'Log in' })).toBeTruthy();
    await waitFor(() => expect(fetchMock).toHaveBeenCalledTimes(1));
    expect(fetchMock.mock.calls.map(([u]) => u)).toEqual([expect.stringContaining('/api/auth/options')]);
  });

  it('logs in and goes on to the redirect target with a full navigation, leaving the notice', async () => {
    serve({
      'GET /api/auth/options': () => ok({ sso: null }),
      'POST /api/auth/login': () => ok(null),
      'GET /api/user/me': () => ok(USER),
    });
    const leave = open('/login?redirect=%2Fconv%2Fabc');
    fireEvent.change(screen.getByLabelText('Username'), { target: { value: 'ada' } });
    fireEvent.change(screen.getByLabelText('Password'), { target: { value: 'secret-pass' } });
    fireEvent.click(screen.getByRole('button', { name: 'Log in' }));
    await waitFor(() => expect(leave).toHaveBeenCalledWith('/conv/abc'));
    expect(hasLoginFlag()).toBe(true);
    expect(takeLoginNotice()).toBe(true);
  });

  it('says why the password was refused, and stays', async () => {
    serve({
      'GET /api/auth/options': () => ok({ sso: null }),
      'POST /api/auth/login': () =>
        json(401, { code: 10401, message: 'errors.badCredentials', result: null }),
    });
    const leave = open('/login');
    fireEvent.change(screen.getByLabelText('Username'), { target: { value: 'ada' } });
    fireEvent.change(screen.getByLabelText('Password'), { target: { value: 'wrong-pass' } });
    fireEvent.click(screen.getByRole('button', { name: 'Log in' }));
    expect(await screen.findByText('Incorrect username or password')).toBeTruthy();
    expect(leave).not.toHaveBeenCalled();
  });

  it('says a refused login once, for the whole form, and selects the password to be typed again', async () => {
    serve({
      'GET /api/auth/options': () => ok({ sso: null }),
      'POST /api/auth/login': () =>
        json(401, { code: 10401, message: 'errors.badCredentials', result: null }),
    });
    open('/login');
    const username = screen.getByLabelText('Username');
    const password = screen.getByLabelText<HTMLInputElement>('Password');
    fireEvent.change(username, { target: { value: 'ada' } });
    fireEvent.change(password, { target: { value: 'wrong-pass' } });
    fireEvent.click(screen.getByRole('button', { name: 'Log in' }));
    const alert = await screen.findByRole('alert');
    expect(alert.textContent).toBe('Incorrect username or password');
    // Said once: not again under a field, nor above the page.
    expect(screen.getAllByText(/Incorrect username or password/)).toHaveLength(1);
    for (const field of [username, password]) {
      expect(field.getAttribute('aria-invalid')).toBe('true');
      expect(field.getAttribute('aria-errormessage')).toBe(alert.id);
    }
    expect(alert.id).not.toBe('');
    await waitFor(() => expect(document.activeElement).toBe(password));
    expect([password.selectionStart, password.selectionEnd]).toEqual([0, 'wrong-pass'.length]);
  });

  it('shows a failed request above the form (this page has no toasts)', async () => {
    serve({
      'GET /api/auth/options': () => ok({ sso: null }),
      'POST /api/auth/login': () => json(500, { code: 500, message: 'errors.internal', result: null }),
    });
    open('/login');
    fireEvent.change(screen.getByLabelText('Username'), { target: { value: 'ada' } });
    fireEvent.change(screen.getByLabelText('Password'), { target: { value: 'secret-pass' } });
    fireEvent.click(screen.getByRole('button', { name: 'Log in' }));
    const alert = await screen.findByRole('alert');
    expect(alert.textContent).toMatch(/internal error/i);
  });

  it('sends a visitor who is already logged in on at once', async () => {
    setLoginFlag();
    serve({ 'GET /api/user/me': () => ok(USER), 'GET /api/auth/options': () => ok({ sso: null }) });
    const leave = open('/login?redirect=%2Fconversation%3Fid%3Dx');
    await waitFor(() => expect(leave).toHaveBeenCalledWith('/conversation?id=x'));
    expect(screen.queryByRole('button', { name: 'Log in' })).toBeNull();
  });

  it('sends a visitor who is already logged in home, not to another site a redirect with a tab names', async () => {
    setLoginFlag();
    serve({ 'GET /api/user/me': () => ok(USER), 'GET /api/auth/options': () => ok({ sso: null }) });
    const leave = open('/login?redirect=%2F%09%2Fevil.example');
    await waitFor(() => expect(leave).toHaveBeenCalledTimes(1));
    expect(leave).toHaveBeenCalledWith('/conversation');
  });

  it('forgets a stale login flag and shows the form', async () => {
    setLoginFlag();
    serve({
      'GET /api/user/me': () => json(401, { code: 10401, message: 'errors.notLoggedIn', result: null }),
      'GET /api/auth/options': () => ok({ sso: null }),
    });
    const leave = open('/login');
    expect(await screen.findByRole('button', { name: 'Log in' })).toBeTruthy();
    expect(hasLoginFlag()).toBe(false);
    expect(leave).not.toHaveBeenCalled();
  });

  it('loads the theme menu when its button is used, and opens it', async () => {
    serve({ 'GET /api/auth/options': () => ok({ sso: null }) });
    open('/login');
    fireEvent.click(screen.getByTestId('theme-toggle'));
    expect(await screen.findByRole('menuitemradio', { name: 'Follow device' })).toBeTruthy();
  });

  it('opens the theme menu when the menus arrive between the press and the release', async () => {
    // Pointing at the button starts the load; when it lands while the button is held down, the button is replaced
    // and the release clicks the header around it, not the button.
    serve({ 'GET /api/auth/options': () => ok({ sso: null }) });
    open('/login');
    const standIn = screen.getByTestId('theme-toggle');
    const header = standIn.parentElement!;
    fireEvent.pointerEnter(standIn);
    fireEvent.pointerDown(standIn, { button: 0 });
    await waitFor(() => expect(screen.getByTestId('theme-toggle')).not.toBe(standIn));
    fireEvent.click(header);
    // (jsdom lays nothing out, so the menu's positioning hides its open dropdown soon after: the button says it.)
    await waitFor(() =>
      expect(screen.getByTestId('theme-toggle').getAttribute('aria-expanded')).toBe('true'),
    );
  });
});
