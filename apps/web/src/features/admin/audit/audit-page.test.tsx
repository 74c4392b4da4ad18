import { MantineProvider } from '@mantine/core';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { cleanup, fireEvent, render, screen, within } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { MASKED_SECRET } from '@cc/contracts';
import type { AuditPage as AuditPageData } from '@cc/contracts';
import { i18n } from '../../../i18n';
import { installDomStubs } from '../shared/test-dom';
import { AuditPage } from './audit-page';

const page: AuditPageData = {
  total: 2,
  items: [
    {
      id: 8,
      time: '2026-11-23T11:00:00.000Z',
      actor_id: 1,
      actor_name: 'admin',
      address: '10.0.0.5',
      action: 'config.update',
      target_type: 'config',
      target_id: null,
      target_label: 'config',
      changes: { 'stats.audit_log_ttl': [31536000, 86400] },
      outcome: 'success',
    },
    {
      id: 7,
      time: '2026-11-23T10:00:00.000Z',
      actor_id: 1,
      actor_name: 'admin',
      address: '10.0.0.5',
      action: 'user.settings',
      target_type: 'user',
      target_id: '12',
      target_label: 'alice',
      changes: {
        'openai_web.total_ask_count': [100, 7],
        'openai_api.custom_openai_api_settings.key': [null, MASKED_SECRET],
      },
      outcome: 'success',
    },
  ],
};

const json = (status: number, body: unknown) =>
  new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json' } });

let fetchMock: ReturnType<typeof vi.fn>;
beforeEach(async () => {
  installDomStubs();
  await i18n.changeLanguage('en-US');
});
afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
});

function renderPage() {
  const client = new QueryClient({ defaultOptions: { queries: { retry: false } } });
  render(
    <QueryClientProvider client={client}>
      <MantineProvider>
        <AuditPage />
      </MantineProvider>
    </QueryClientProvider>,
  );
}

describe('AuditPage', () => {
  it('shows the error with a retry when loading fails, then the entries in words', async () => {
    fetchMock = vi
      .fn()
      .mockResolvedValueOnce(json(500, { code: 500, message: 'errors.internal', result: null }))
      .mockResolvedValue(json(200, { code: 200, message: 'tips.requestSuccess', result: page }));
    vi.stubGlobal('fetch', fetchMock);
    renderPage();

    const alert = await screen.findByTestId('load-error');
    expect(alert.textContent).toContain('Internal error');
    fireEvent.click(screen.getByRole('button', { name: 'Retry' }));

    const row = (await screen.findByText('alice')).closest('tr')!;
    const cells = within(row);
    expect(cells.getByText("Changed a user's settings and quotas")).toBeTruthy();
    expect(cells.getByText('OpenAI Web › Total asks left: 100 → 7')).toBeTruthy();
    expect(cells.getByText('OpenAI API › Own API key: — → (hidden)')).toBeTruthy();
    expect(row.textContent).not.toContain('user.settings');
    expect(row.textContent).not.toContain('total_ask_count');
    expect(row.textContent).not.toContain(MASKED_SECRET);
    expect(String(fetchMock.mock.calls.at(-1)?.[0])).toBe('/api/system/audit?offset=0&limit=50');

    // The config is one of a kind: its target is its type alone, its fields named as on the config page.
    const config = screen
      .getByText('Statistics › Keep the audit log (seconds): 31536000 → 86400')
      .closest('tr')!;
    expect(within(config).getByText('Changed the config')).toBeTruthy();
    expect(within(config).queryByText('config')).toBeNull();
    expect(within(config).getByText('Config')).toBeTruthy();
  });

  it('sends a typed target as a filter, from the first page', async () => {
    fetchMock = vi
      .fn()
      .mockResolvedValue(json(200, { code: 200, message: 'tips.requestSuccess', result: page }));
    vi.stubGlobal('fetch', fetchMock);
    renderPage();
    await screen.findByText('alice');
    fireEvent.change(screen.getByRole('textbox', { name: 'Target' }), { target: { value: 'ali' } });
    await vi.waitFor(() =>
      expect(String(fetchMock.mock.calls.at(-1)?.[0])).toBe('/api/system/audit?target=ali&offset=0&limit=50'),
    );
  });
});
