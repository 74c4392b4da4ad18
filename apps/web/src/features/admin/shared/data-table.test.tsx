import { MantineProvider } from '@mantine/core';
import { QueryClient, QueryClientProvider, useQuery } from '@tanstack/react-query';
import { cleanup, fireEvent, render, screen } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { i18n } from '../../../i18n';
import { ApiError } from '../../../lib/api-client';
import { DataTable } from './data-table';
import { installDomStubs } from './test-dom';

beforeEach(async () => {
  installDomStubs();
  await i18n.changeLanguage('en-US');
});
afterEach(cleanup);

interface Row {
  id: number;
  name: string;
}

/** A table fed by a query, wired as the admin pages wire theirs. */
function Harness({ load }: { load: () => Promise<Row[]> }) {
  const rows = useQuery({ queryKey: ['rows'], queryFn: load, retry: false });
  return (
    <DataTable
      label="Rows"
      rows={rows.data ?? []}
      columns={[{ key: 'name', header: 'Name', render: (r) => r.name }]}
      rowId={(r) => r.id}
      empty={rows.isLoading ? 'Loading' : undefined}
      error={rows.error}
      onRetry={() => void rows.refetch()}
      retrying={rows.isFetching}
    />
  );
}

function renderTable(load: () => Promise<Row[]>) {
  const client = new QueryClient();
  render(
    <QueryClientProvider client={client}>
      <MantineProvider>
        <Harness load={load} />
      </MantineProvider>
    </QueryClientProvider>,
  );
  return client;
}

const serverError = () => new ApiError(500, 'errors.internal', null, 500, '/api/rows');

describe('DataTable load errors', () => {
  it('a list that failed to load shows the error and a retry button, not "No data"', async () => {
    const load = vi
      .fn<() => Promise<Row[]>>()
      .mockRejectedValueOnce(serverError())
      .mockResolvedValueOnce([{ id: 1, name: 'alice' }]);
    renderTable(load);
    const alert = await screen.findByTestId('load-error');
    expect(alert.textContent).toContain('Failed to load');
    expect(alert.textContent).toContain('500 Internal error');
    expect(screen.queryByText('No data')).toBeNull();

    fireEvent.click(screen.getByRole('button', { name: 'Retry' }));
    expect(await screen.findByText('alice')).toBeTruthy();
    expect(screen.queryByTestId('load-error')).toBeNull();
    expect(load).toHaveBeenCalledTimes(2);
  });

  it('keeps showing older rows under the error when a reload fails', async () => {
    const load = vi
      .fn<() => Promise<Row[]>>()
      .mockResolvedValueOnce([{ id: 1, name: 'alice' }])
      .mockRejectedValueOnce(serverError());
    const client = renderTable(load);
    expect(await screen.findByText('alice')).toBeTruthy();
    await client.refetchQueries({ queryKey: ['rows'] });
    expect(await screen.findByTestId('load-error')).toBeTruthy();
    expect(screen.getByText('alice')).toBeTruthy();
  });

  it('an empty list that loaded says "No data"', async () => {
    renderTable(() => Promise.resolve([]));
    expect(await screen.findByText('No data')).toBeTruthy();
    expect(screen.queryByTestId('load-error')).toBeNull();
  });
});
