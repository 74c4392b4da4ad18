import { MantineProvider } from '@mantine/core';
import type { TaskRun } from '@cc/contracts';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { cleanup, render, screen } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { i18n } from '../../../../i18n';
import { installDomStubs } from '../../shared/test-dom';
import { TaskHistory } from './task-history';

const RUNS: TaskRun[] = [
  {
    id: 2,
    name: 'server_health_check',
    trigger: 'schedule',
    start_time: '2026-11-23T10:00:00.000Z',
    end_time: '2026-11-23T10:00:02.500Z',
    status: 'success',
    output: 'a.example: online; b.example: offline (refused)',
    summary: { key: 'healthDone', params: { online: 1, offline: 1 } },
  },
  {
    id: 1,
    name: 'server_health_check',
    trigger: 'manual',
    start_time: '2026-11-23T09:00:00.000Z',
    end_time: '2026-11-23T09:00:00.040Z',
    status: 'failed',
    output: 'connect ECONNREFUSED 10.0.0.9:443',
    summary: null,
  },
];

let fetchMock: ReturnType<typeof vi.fn>;
beforeEach(() => {
  installDomStubs();
  fetchMock = vi.fn((url: string) =>
    Promise.resolve(
      url.startsWith('/api/system/task/server_health_check/runs?limit=20')
        ? new Response(JSON.stringify({ code: 200, message: 'ok', result: RUNS }), { status: 200 })
        : new Response('{}', { status: 404 }),
    ),
  );
  vi.stubGlobal('fetch', fetchMock);
});
afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
});

function renderHistory() {
  render(
    <QueryClientProvider client={new QueryClient()}>
      <MantineProvider>
        <TaskHistory name="server_health_check" onClose={() => undefined} />
      </MantineProvider>
    </QueryClientProvider>,
  );
}

describe('TaskHistory', () => {
  it('lists the latest runs with time, duration, trigger, outcome and output in English', async () => {
    await i18n.changeLanguage('en-US');
    renderHistory();
    expect(await screen.findByText('1 online, 1 offline')).toBeTruthy();
    expect(screen.getAllByText('Run history of Server health check').length).toBeGreaterThan(0);
    expect(screen.getByText('2.5 s')).toBeTruthy();
    expect(screen.getByText('40 ms')).toBeTruthy();
    expect(screen.getByText('Schedule')).toBeTruthy();
    expect(screen.getByText('By hand')).toBeTruthy();
    expect(screen.getByText('Succeeded')).toBeTruthy();
    expect(screen.getByText('Failed')).toBeTruthy();
    // A failed run has no summary: its error is shown as the server wrote it.
    expect(screen.getByText('connect ECONNREFUSED 10.0.0.9:443')).toBeTruthy();
    expect(screen.queryByText(/healthDone|server_health_check/)).toBeNull();
  });

  it('speaks Chinese too', async () => {
    await i18n.changeLanguage('zh-CN');
    renderHistory();
    expect(await screen.findByText('1 个在线，1 个离线')).toBeTruthy();
    expect(screen.getAllByText('服务器健康检查 的运行历史').length).toBeGreaterThan(0);
    expect(screen.getByText('按计划')).toBeTruthy();
    expect(screen.getByText('2.5 秒')).toBeTruthy();
  });
});
