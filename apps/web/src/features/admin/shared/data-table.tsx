import { Checkbox, Group, Pagination, ScrollArea, Select, Table, Text, UnstyledButton } from '@mantine/core';
import { useMemo, useState } from 'react';
import type { ReactNode } from 'react';
import { LoadError } from '../../../components/load-error';
import { useAdminT } from './admin-i18n';

export interface Column<T> {
  key: string;
  header: ReactNode;
  render: (row: T) => ReactNode;
  /** Sortable when given (rows sorted in the browser). */
  sort?: (a: T, b: T) => number;
  /** With `remote`: the server sorts by this column's key. */
  serverSort?: boolean;
  width?: number | string;
  /** Kept in view at the right edge when the table scrolls sideways (the row actions). */
  sticky?: boolean;
}

export type RowId = string | number;

export interface DataTableProps<T> {
  rows: readonly T[];
  columns: readonly Column<T>[];
  rowId: (row: T) => RowId;
  /** Accessible name of the table. */
  label: string;
  /** Row selection for bulk actions (ids of every page). */
  selected?: ReadonlySet<RowId>;
  onSelectedChange?: (next: Set<RowId>) => void;
  /** Default sort: column key and direction. */
  defaultSort?: { key: string; desc: boolean };
  empty?: ReactNode;
  /**
   * The rows failed to load (the query's error): the table shows the error and a retry button instead of the
   * empty text, and above the rows when older rows are still shown.
   */
  error?: unknown;
  /** Loads the rows again; required with `error`. */
  onRetry?: () => void;
  /** A retry is under way. */
  retrying?: boolean;
  minWidth?: number;
  /** Page size choices; the first is the default. */
  pageSizes?: readonly number[];
  /**
   * The server sorts and pages: `rows` is the page to show, as it is; page, page size and sort changes go to
   * `onChange` (see useRemotePaging).
   */
  remote?: RemotePaging;
}

export interface TableSort {
  key: string;
  desc: boolean;
}

export interface RemotePaging {
  /** Rows that match on the server, on every page. */
  total: number;
  /** 1-based. */
  page: number;
  pageSize: number;
  sort: TableSort | null;
  onChange: (next: { page: number; pageSize: number; sort: TableSort | null }) => void;
}

const PAGE_SIZES = [20, 50, 100] as const;

/** A sticky column stays at the right edge above the cells that scroll under it. */
const STICKY_STYLE = {
  position: 'sticky',
  right: 0,
  zIndex: 1,
  background: 'var(--mantine-color-body)',
  boxShadow: 'inset 1px 0 0 var(--mantine-color-default-border)',
} as const;

/**
 * A paginated table: only one page of rows is in the DOM. Either every row is given and the table sorts and pages
 * them, or (`remote`) the server does and `rows` is the page. Selection keeps ids across pages; the header checkbox
 * selects the rows of the current page.
 */
export function DataTable<T>({
  rows,
  columns,
  rowId,
  label,
  selected,
  onSelectedChange,
  defaultSort,
  empty,
  error,
  onRetry,
  retrying,
  minWidth = 900,
  pageSizes = PAGE_SIZES,
  remote,
}: DataTableProps<T>) {
  const { ta } = useAdminT();
  const [localSort, setLocalSort] = useState(defaultSort ?? null);
  const [requestedPage, setLocalPage] = useState(1);
  const [localPageSize, setLocalPageSize] = useState<number>(pageSizes[0] ?? 20);
  const sort = remote ? remote.sort : localSort;
  const pageSize = remote ? remote.pageSize : localPageSize;

  const sorted = useMemo(() => {
    if (remote || !localSort) return rows;
    const column = columns.find((c) => c.key === localSort.key);
    if (!column?.sort) return rows;
    const compare = column.sort;
    const list = [...rows].sort(compare);
    return localSort.desc ? list.reverse() : list;
  }, [rows, columns, localSort, remote]);

  const total = remote ? remote.total : sorted.length;
  const pageCount = Math.max(1, Math.ceil(total / pageSize));
  // Fewer rows than before (a filter, a delete): show the last page there is.
  const page = Math.min(remote ? remote.page : requestedPage, pageCount);
  const current = remote ? rows : sorted.slice((page - 1) * pageSize, page * pageSize);
  const setPage = (next: number) =>
    remote ? remote.onChange({ page: next, pageSize, sort }) : setLocalPage(next);
  const setPageSize = (next: number) =>
    remote ? remote.onChange({ page: 1, pageSize: next, sort }) : (setLocalPageSize(next), setLocalPage(1));
  const sortable = (column: Column<T>) => (remote ? !!column.serverSort : !!column.sort);

  const selectable = !!selected && !!onSelectedChange;
  const pageIds = current.map(rowId);
  const allOnPage = pageIds.length > 0 && pageIds.every((id) => selected?.has(id));
  const someOnPage = pageIds.some((id) => selected?.has(id));

  const toggle = (id: RowId) => {
    if (!selected || !onSelectedChange) return;
    const next = new Set(selected);
    if (next.has(id)) next.delete(id);
    else next.add(id);
    onSelectedChange(next);
  };
  const togglePage = () => {
    if (!selected || !onSelectedChange) return;
    const next = new Set(selected);
    for (const id of pageIds) {
      if (allOnPage) next.delete(id);
      else next.add(id);
    }
    onSelectedChange(next);
  };

  const handleSort = (key: string) => {
    const next = sort?.key === key ? { key, desc: !sort.desc } : { key, desc: false };
    if (remote) remote.onChange({ page: 1, pageSize, sort: next });
    else setLocalSort(next);
  };

  const failed = error !== undefined && error !== null;
  const loadError = failed && <LoadError error={error} onRetry={() => onRetry?.()} retrying={retrying} />;

  return (
    <div>
      {failed && rows.length > 0 && (
        <div style={{ marginBottom: 'var(--mantine-spacing-sm)' }}>{loadError}</div>
      )}
      {/* The viewport takes focus so the keyboard can scroll a wide table sideways. */}
      <ScrollArea type="auto" viewportProps={{ tabIndex: 0, role: 'region', 'aria-label': label }}>
        <Table
          className="cc-data-table"
          striped
          highlightOnHover
          withTableBorder
          verticalSpacing="xs"
          miw={minWidth}
          aria-label={label}
        >
          <Table.Thead>
            <Table.Tr>
              {selectable && (
                <Table.Th w={40}>
                  <Checkbox
                    aria-label={ta('table.selectPage')}
                    checked={allOnPage}
                    indeterminate={!allOnPage && someOnPage}
                    onChange={togglePage}
                  />
                </Table.Th>
              )}
              {columns.map((column) => (
                <Table.Th
                  key={column.key}
                  w={column.width}
                  style={column.sticky ? STICKY_STYLE : undefined}
                  aria-sort={sort?.key === column.key ? (sort.desc ? 'descending' : 'ascending') : undefined}
                >
                  {sortable(column) ? (
                    <UnstyledButton onClick={() => handleSort(column.key)} fw={700} fz="sm">
                      {column.header}
                      {sort?.key === column.key ? (sort.desc ? ' ▼' : ' ▲') : ''}
                    </UnstyledButton>
                  ) : (
                    column.header
                  )}
                </Table.Th>
              ))}
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {current.length === 0 && (
              <Table.Tr>
                <Table.Td colSpan={columns.length + (selectable ? 1 : 0)}>
                  {failed && rows.length === 0 ? (
                    loadError
                  ) : (
                    <Text c="dimmed" ta="center" py="md">
                      {empty ?? ta('table.empty')}
                    </Text>
                  )}
                </Table.Td>
              </Table.Tr>
            )}
            {current.map((row) => {
              const id = rowId(row);
              return (
                <Table.Tr key={id} data-row-id={id}>
                  {selectable && (
                    <Table.Td>
                      <Checkbox
                        aria-label={ta('table.selectRow', { id })}
                        checked={selected.has(id)}
                        onChange={() => toggle(id)}
                      />
                    </Table.Td>
                  )}
                  {columns.map((column) => (
                    <Table.Td key={column.key} style={column.sticky ? STICKY_STYLE : undefined}>
                      {column.render(row)}
                    </Table.Td>
                  ))}
                </Table.Tr>
              );
            })}
          </Table.Tbody>
        </Table>
      </ScrollArea>
      <Group justify="space-between" mt="sm" wrap="wrap">
        <Text size="sm" c="dimmed">
          {ta('table.summary', { count: total, selected: selected?.size ?? 0 })}
        </Text>
        <Group gap="sm">
          <Select
            aria-label={ta('table.pageSize')}
            w={90}
            size="xs"
            data={pageSizes.map(String)}
            value={String(pageSize)}
            allowDeselect={false}
            onChange={(value) => setPageSize(Number(value ?? pageSizes[0]))}
          />
          <Pagination total={pageCount} value={page} onChange={setPage} size="sm" />
        </Group>
      </Group>
    </div>
  );
}
