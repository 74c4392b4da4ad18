import { useState } from 'react';
import type { RemotePaging, TableSort } from './data-table';

export interface RemotePagingState {
  /** The query's paging and sort: offset, limit, sort column, order. */
  params: { offset: number; limit: number; sort?: string; order?: 'asc' | 'desc' };
  /** The DataTable's `remote` prop, given the total of the answer. */
  remote: (total: number) => RemotePaging;
}

/**
 * Page, page size and sort of a table the server pages; back to the first page whenever `filterKey` (the filters,
 * as one string) changes.
 */
export function useRemotePaging(
  filterKey: string,
  defaults: { pageSize?: number; sort?: TableSort | null } = {},
): RemotePagingState {
  const [state, setState] = useState({
    page: 1,
    pageSize: defaults.pageSize ?? 20,
    sort: defaults.sort ?? null,
    filterKey,
  });
  // Filters changed: the first page (adjusted while rendering, before anything is fetched for the old page).
  const current = state.filterKey === filterKey ? state : { ...state, page: 1, filterKey };
  if (current !== state) setState(current);
  return {
    params: {
      offset: (current.page - 1) * current.pageSize,
      limit: current.pageSize,
      ...(current.sort ? { sort: current.sort.key, order: current.sort.desc ? 'desc' : 'asc' } : {}),
    },
    remote: (total) => ({
      total,
      page: current.page,
      pageSize: current.pageSize,
      sort: current.sort,
      onChange: (next) => setState({ ...next, filterKey }),
    }),
  };
}
