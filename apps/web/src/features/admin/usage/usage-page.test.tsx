import { MantineProvider } from '@mantine/core';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { cleanup, fireEvent, render, screen, within } from '@testing-library/react';
import { MemoryRouter } from 'react-router';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { UsageReport, UsageRow } from '@cc/contracts';
import { i18n } from '../../../i18n';
import { installDomStubs } from '../shared/test-dom';
import { UsagePage } from './usage-page';

const base: Omit<UsageRow, 'asks'> = {
  user_id: null,
  username: null,
  source: null,
  model: null,
  day: null,
  input_tokens: 0,
  output_tokens: 0,
  estimated_asks: 0,
  avg_queue_seconds: 0.5,
  avg_answer_seconds: 2,
  errors: 0,
  cost: 0,
};
const report = (group: UsageReport['group'], rows: UsageRow[]): UsageReport => ({
  start: '2026-03-01T00:00:00.000Z',
  end: '2026-03-03T00:00:00.000Z',
  group,
  currency: 'USD',
  rows,
});
const reports: Record<string, UsageReport> = {
  user: report('user', [
    { ...base, user_id: 4, username: 'alice', asks: 2, input_tokens: 1234, output_tokens: 5678 },
    { ...base, user_id: 5, username: 'bob', asks: 9, input_tokens: 10, output_tokens: 20 },
  ]),
  day: report('day', [{ ...base, day: '2026-03-01', asks: 2, input_tokens: 1234, output_tokens: 5678 }]),
  model: report('model', [{ ...base, source: 'openai_api', model: 'gpt_4', asks: 2 }]),
};

const json = (status: number, body: unknown) =>
  new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json' } });
const ok = (result: unknown) => json(200, { code: 200, message: 'tips.requestSuccess', result });

let fetchMock: ReturnType<typeof vi.fn>;
beforeEach(async () => {
  installDomStubs();
  await i18n.changeLanguage('en-US');
});
afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
});

function renderPage(url = '/admin/usage') {
  const client = new QueryClient({ defaultOptions: { queries: { retry: false } } });
  render(
    <QueryClientProvider client={client}>
      <MantineProvider>
        <MemoryRouter initialEntries={[url]}>
          <UsagePage />
        </MemoryRouter>
      </MantineProvider>
    </QueryClientProvider>,
  );
}

const groupOf = (url: string) => new URL(url, 'http://x').searchParams.get('group') ?? 'user';

describe('UsagePage', () => {
  it('shows an error with a retry, then the users sorted by asks, sortable by tokens', async () => {
    let failed = false;
    fetchMock = vi.fn((url: string) => {
      if (!failed && groupOf(url) === 'user') {
        failed = true;
        return Promise.resolve(json(500, { code: 500, message: 'errors.internal', result: null }));
      }
      return Promise.resolve(ok(reports[groupOf(url)]));
    });
    vi.stubGlobal('fetch', fetchMock);
    renderPage();

    const table = await screen.findByRole('table', { name: 'By user' });
    fireEvent.click(await within(table).findByRole('button', { name: 'Retry' }));
    const alice = (await screen.findByText('alice')).closest('tr')!;
    expect(alice.textContent).toContain('1,234');
    expect(alice.textContent).toContain('5,678');
    const names = () =>
      within(screen.getByRole('table', { name: 'By user' }))
        .getAllByRole('row')
        .slice(1)
        .map((r) => r.querySelector('td')?.textContent);
    // most asks first
    expect(names()).toEqual(['bob', 'alice']);
    fireEvent.click(screen.getByRole('button', { name: /Input tokens/ }));
    fireEvent.click(screen.getByRole('button', { name: /Input tokens/ }));
    expect(names()[0]).toBe('alice');
  });

  it("a user's link filters every request by user_id and opens on the days", async () => {
    fetchMock = vi.fn((url: string) => Promise.resolve(ok(reports[groupOf(url)])));
    vi.stubGlobal('fetch', fetchMock);
    renderPage('/admin/usage?user_id=4');
    await screen.findByRole('table', { name: 'By day' });
    expect(await screen.findByText('User: alice')).toBeTruthy();
    const urls = fetchMock.mock.calls.map((c) => String(c[0]));
    expect(urls.length).toBeGreaterThan(0);
    expect(urls.every((u) => u.includes('user_id=4'))).toBe(true);
  });
});
