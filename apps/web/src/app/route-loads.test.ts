import { afterEach, describe, expect, it, vi } from 'vitest';
import { createQueryClient } from '../lib/query-client';
import { queryKeys } from '../lib/query-keys';
import { clearLoginFlag, setLoginFlag } from '../lib/session-flag';
import { i18n } from '../i18n';
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

  it('on the chat page, builds the date formatters when the browser is idle', async () => {
    // Fresh modules: no formatter built by an earlier test.
    vi.resetModules();
    const loads = await import('./route-loads');
    const format = await import('../lib/format');
    setLoginFlag();
    vi.stubGlobal(
      'fetch',
      vi.fn(() => Promise.resolve(ok(null))),
    );
    const idle: (() => void)[] = [];
    vi.stubGlobal('requestIdleCallback', (task: () => void) => idle.push(task));
    const Real = Intl.RelativeTimeFormat;
    let built = 0;
    const intl = Intl as { RelativeTimeFormat: typeof Real };
    intl.RelativeTimeFormat = class extends Real {
      constructor(...args: ConstructorParameters<typeof Real>) {
        super(...args);
        built += 1;
      }
    };
    try {
      loads.startLikelyLoads(createQueryClient(), new URL('http://localhost/conversation?id=c1'));
      expect(built).toBe(0);
      expect(idle).toHaveLength(1);
      idle.forEach((task) => task());
      expect(built).toBe(1);
      // The rows' times use the formatter built then.
      expect(format.formatRelative(new Date().toISOString(), i18n.language)).not.toBe('');
      expect(built).toBe(1);
    } finally {
      intl.RelativeTimeFormat = Real;
    }
  });

  it('asks only for the user elsewhere', () => {
    setLoginFlag();
    const fetchMock = vi.fn(() => Promise.resolve(ok({ id: 1 })));
    vi.stubGlobal('fetch', fetchMock);
    startLikelyLoads(createQueryClient(), new URL('http://localhost/admin/user'));
    expect(requested(fetchMock)).toEqual(['/api/user/me']);
  });
});
