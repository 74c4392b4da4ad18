import { afterEach, describe, expect, it, vi } from 'vitest';
import { ApiError, NetworkError, apiClient, onRequestError } from './api-client';
import type { ErrorEvent } from './api-client';

function respond(status: number, body: unknown) {
  return vi.fn(
    async () =>
      new Response(body === undefined ? '' : typeof body === 'string' ? body : JSON.stringify(body), {
        status,
      }),
  );
}

afterEach(() => vi.unstubAllGlobals());

describe('apiClient', () => {
  it('unwraps the envelope result', async () => {
    vi.stubGlobal('fetch', respond(200, { code: 200, message: 'tips.requestSuccess', result: { id: 1 } }));
    await expect(apiClient.get('/api/user/me')).resolves.toEqual({ id: 1 });
  });

  it('sends JSON bodies and FormData as is', async () => {
    const fetchMock = respond(200, { code: 200, message: 'ok', result: null });
    vi.stubGlobal('fetch', fetchMock);
    await apiClient.patch('/api/user/me', { body: { password: 'x' } });
    const form = new FormData();
    await apiClient.post('/api/auth/login', { body: form });
    const calls = fetchMock.mock.calls as unknown as [string, RequestInit][];
    expect(calls[0]![1].body).toBe('{"password":"x"}');
    expect((calls[0]![1].headers as Record<string, string>)['Content-Type']).toBe('application/json');
    expect(calls[1]![1].body).toBe(form);
  });

  it('turns an error envelope into an ApiError and reports it, with the dialog for 10401', async () => {
    const events: ErrorEvent[] = [];
    const off = onRequestError((e) => events.push(e));
    vi.stubGlobal('fetch', respond(401, { code: 10401, message: 'errors.loginExpired', result: null }));
    const error = await apiClient.get('/api/conv').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ApiError);
    expect((error as ApiError).code).toBe(10401);
    expect(events[0]).toMatchObject({ toast: true, authDialog: true });
    off();
  });

  it('never opens the login-expired dialog for login and logout, nor when silent asks so', async () => {
    const events: ErrorEvent[] = [];
    const off = onRequestError((e) => events.push(e));
    vi.stubGlobal('fetch', respond(401, { code: 10401, message: 'errors.badCredentials', result: null }));
    await apiClient.post('/api/auth/login').catch(() => undefined);
    await apiClient.post('/api/auth/logout').catch(() => undefined);
    await apiClient.get('/api/user/me', { noAuthDialog: true, silent: true }).catch(() => undefined);
    expect(events.map((e) => e.authDialog)).toEqual([false, false, false]);
    expect(events.map((e) => e.toast)).toEqual([true, true, false]);
    off();
  });

  it('treats a response without envelope, or a failed fetch, as a network error', async () => {
    vi.stubGlobal('fetch', respond(502, '<html>Bad gateway</html>'));
    await expect(apiClient.get('/api/x')).rejects.toBeInstanceOf(NetworkError);
    vi.stubGlobal(
      'fetch',
      vi.fn(async () => Promise.reject(new TypeError('Failed to fetch'))),
    );
    await expect(apiClient.get('/api/x')).rejects.toBeInstanceOf(NetworkError);
  });
});
