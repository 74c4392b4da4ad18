import { afterEach, describe, expect, it, vi } from 'vitest';
import { createQueryClient } from '../lib/query-client';
import { queryKeys } from '../lib/query-keys';
import { clearLoginFlag, setLoginFlag } from '../lib/session-flag';
import { startLikelyLoads } from './route-loads';

const ok = (result: unknown) =>
  new Response(JSON.stringify({ code: 200, message: 'ok', result }), {
    status: 200,
    headers: { 'content-type': 'application/json' },
  });

afterEach(() => {
  vi.unstubAllGlobals();
  clearLoginFlag();
});

function requested(fetchMock: ReturnType<typeof vi.fn>): string[] {
  return fetchMock.mock.calls.map(([url]) => new URL(url as string, 'http://localhost').pathname);
}

describe('startLikelyLoads', () => {
  it('starts nothing for a visitor without the login flag', () => {
    const fetchMock = vi.fn(() => Promise.resolve(ok(null)));
    vi.stubGlobal('fetch', fetchMock);
    startLikelyLoads(createQueryClient(), new URL('http://localhost/conversation?id=c1'));
    expect(fetchMock).not.toHaveBeenCalled();
  });

  it('asks for the user and, on the chat page, the conversation at once', async () => {
    setLoginFlag();
    const fetchMock = vi.fn(() => Promise.resolve(ok({ id: 1 })));
    vi.stubGlobal('fetch', fetchMock);
    const client = createQueryClient();
    startLikelyLoads(client, new URL('http://localhost/conversation?id=c1'));
    expect(requested(fetchMock).sort()).toEqual(['/api/conv/c1', '/api/user/me']);
    await vi.waitFor(() => expect(client.getQueryData(queryKeys.me)).toEqual({ id: 1 }));
  });

  it('asks only for the user elsewhere', () => {
    setLoginFlag();
    const fetchMock = vi.fn(() => Promise.resolve(ok({ id: 1 })));
    vi.stubGlobal('fetch', fetchMock);
    startLikelyLoads(createQueryClient(), new URL('http://localhost/admin/user'));
    expect(requested(fetchMock)).toEqual(['/api/user/me']);
  });
});
