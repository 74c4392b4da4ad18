import { Button } from '@mantine/core';
import { RefreshIcon } from '../../../components/icons';
import { useAdminT } from './admin-i18n';

/** The admin pages' refresh button: refetches a query, spinning while it loads. */
export function RefreshButton({ query }: { query: { isFetching: boolean; refetch: () => unknown } }) {
  const { ta } = useAdminT();
  return (
    <Button
      variant="default"
      leftSection={<RefreshIcon size={16} />}
      loading={query.isFetching}
      onClick={() => void query.refetch()}
    >
      {ta('common.refresh')}
    </Button>
  );
}
