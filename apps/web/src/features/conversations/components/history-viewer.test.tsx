import { MantineProvider } from '@mantine/core';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { cleanup, render, screen } from '@testing-library/react';
import { RouterProvider, createMemoryRouter, useParams } from 'react-router';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { i18n } from '../../../i18n';
import { installDomStubs } from '../../../test/dom-stubs';
import { HistoryViewer } from './history-viewer';

const json = (status: number, body: unknown) =>
  new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json' } });

beforeEach(async () => {
  installDomStubs();
  await i18n.changeLanguage('en-US');
});
afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
});

/** As the app's /conv/{id} route renders it. */
function HistoryAtRoute() {
  const { conversationId = '' } = useParams();
  return <HistoryViewer conversationId={conversationId} />;
}

function renderAt(url: string) {
  const router = createMemoryRouter(
    [
      { path: '/conv/:conversationId', element: <HistoryAtRoute /> },
      { path: '/error/404', element: <p>not found page</p> },
    ],
    { initialEntries: [url] },
  );
  render(
    <QueryClientProvider client={new QueryClient({ defaultOptions: { queries: { retry: false } } })}>
      <MantineProvider>
        <RouterProvider router={router} />
      </MantineProvider>
    </QueryClientProvider>,
  );
  return router;
}

describe('HistoryViewer', () => {
  it('sends an address whose id is not a conversation id to the 404 page without asking the server', async () => {
    const fetchMock = vi.fn();
    vi.stubGlobal('fetch', fetchMock);
    const router = renderAt('/conv/not-a-uuid');
    expect(await screen.findByText('not found page')).toBeTruthy();
    expect(router.state.location.pathname).toBe('/error/404');
    expect(fetchMock).not.toHaveBeenCalled();
  });

  it('sends a conversation the server does not know to the 404 page', async () => {
    vi.stubGlobal(
      'fetch',
      vi.fn(() =>
        Promise.resolve(json(404, { code: 404, message: 'errors.conversationNotFound', result: null })),
      ),
    );
    renderAt('/conv/00000000-0000-4000-8000-000000000001');
    expect(await screen.findByText('not found page')).toBeTruthy();
  });

  it('says the conversation failed to load, in words, when the server fails', async () => {
    vi.stubGlobal(
      'fetch',
      vi.fn(() => Promise.resolve(json(500, { code: 500, message: 'errors.internalError', result: null }))),
    );
    renderAt('/conv/00000000-0000-4000-8000-000000000001');
    expect(await screen.findByText('Failed to load the conversation')).toBeTruthy();
  });
});
