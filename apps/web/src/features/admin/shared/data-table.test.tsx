import { MantineProvider } from '@mantine/core';
import { QueryClient, QueryClientProvider, useQuery } from '@tanstack/react-query';
import { cleanup, fireEvent, render, screen } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { i18n } from '../../../i18n';
import { ApiError } from '../../../lib/api-client';
import { DataTable } from './data-table';
import { useRemotePaging } from './use-remote-paging';
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

  it('counts its rows in words that fit one row as well as many (it read "1 rows")', async () => {
    renderTable(() => Promise.resolve([{ id: 1, name: 'only' }]));
    expect(await screen.findByText('only')).toBeTruthy();
    expect(screen.getByText('Rows: 1 · selected: 0')).toBeTruthy();
  });
});

/** A table the "server" pages and sorts: 45 rows named r00 … r44, sorted by name in either direction. */
function RemoteHarness({ seen }: { seen: string[] }) {
  const paging = useRemotePaging('filters', { sort: { key: 'name', desc: false } });
  const { offset, limit, order } = paging.params;
  seen.push(`${offset}/${limit}/${order}`);
  const all = Array.from({ length: 45 }, (_, i) => ({ id: i, name: `r${String(i).padStart(2, '0')}` }));
  if (order === 'desc') all.reverse();
  return (
    <DataTable
      label="Rows"
      rows={all.slice(offset, offset + limit)}
      columns={[
        { key: 'name', header: 'Name', render: (r) => r.name, serverSort: true },
        { key: 'id', header: 'Id', render: (r) => r.id },
      ]}
      rowId={(r) => r.id}
      remote={paging.remote(all.length)}
    />
  );
}

describe('DataTable paged by the server', () => {
  it('shows the rows it is given as they are, counts the total, and asks for other pages and sorts', () => {
    const seen: string[] = [];
    render(
      <MantineProvider>
        <RemoteHarness seen={seen} />
      </MantineProvider>,
    );
    expect(screen.getAllByRole('row')).toHaveLength(21);
    expect(screen.getByText('r00')).toBeTruthy();
    expect(screen.getByText(/45/)).toBeTruthy();
    fireEvent.click(screen.getByRole('button', { name: '3' }));
    expect(seen.at(-1)).toBe('40/20/asc');
    expect(screen.getByText('r44')).toBeTruthy();
    expect(screen.getAllByRole('row')).toHaveLength(6);
    // Only the column the server sorts by is a sort button; sorting goes back to the first page.
    expect(screen.queryByRole('button', { name: /^Id/ })).toBeNull();
    fireEvent.click(screen.getByRole('button', { name: /^Name/ }));
    expect(seen.at(-1)).toBe('0/20/desc');
    expect(screen.getByText('r44')).toBeTruthy();
    expect(screen.queryByText('r00')).toBeNull();
  });
});
