import { MantineProvider } from '@mantine/core';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { cleanup, fireEvent, render, screen } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { i18n } from '../../../../i18n';
import { installDomStubs } from '../../shared/test-dom';
import { ServerLog } from './server-log';

const LINES = [
  JSON.stringify({ level: 30, time: Date.UTC(2026, 10, 23, 9, 15, 30), msg: 'Server listening' }),
  JSON.stringify({
    level: 40,
    time: Date.UTC(2026, 10, 23, 9, 16, 0),
    req: { method: 'POST', url: '/api/chat' },
    msg: 'upstream slow',
  }),
];

beforeEach(() => {
  installDomStubs();
  vi.stubGlobal(
    'fetch',
    vi.fn(() =>
      Promise.resolve(
        new Response(JSON.stringify({ code: 200, message: 'ok', result: LINES }), { status: 200 }),
      ),
    ),
  );
});
afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
});

function renderLog() {
  render(
    <QueryClientProvider client={new QueryClient()}>
      <MantineProvider>
        <ServerLog />
      </MantineProvider>
    </QueryClientProvider>,
  );
}

describe('ServerLog', () => {
  it('shows time, level in words, message and request path instead of raw JSON; search narrows it', async () => {
    await i18n.changeLanguage('en-US');
    renderLog();
    expect(await screen.findByText('Server listening')).toBeTruthy();
    expect(screen.getByText('Info')).toBeTruthy();
    expect(screen.getByText('Warning')).toBeTruthy();
    expect(screen.getByText('POST /api/chat')).toBeTruthy();
    const log = screen.getByTestId('server-log');
    expect(log.textContent).not.toContain('"level"');
    expect(log.textContent).not.toContain(String(Date.UTC(2026, 10, 23, 9, 15, 30)));
    expect(screen.getByText('2 lines')).toBeTruthy();

    fireEvent.change(screen.getByRole('searchbox', { name: 'Search' }), { target: { value: 'slow' } });
    expect(screen.queryByText('Server listening')).toBeNull();
    expect(screen.getByText('upstream slow')).toBeTruthy();
    expect(screen.getByText('1 of 2 lines match')).toBeTruthy();
  });

  it('names the levels in Chinese', async () => {
    await i18n.changeLanguage('zh-CN');
    renderLog();
    expect(await screen.findByText('信息')).toBeTruthy();
    expect(screen.getByText('警告')).toBeTruthy();
  });
});
