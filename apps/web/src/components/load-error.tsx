import { Alert, Button, Group, Text } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { describeRequestError } from '../lib/errors';

export interface LoadErrorProps {
  /** The query's error: its code and translated message say what went wrong. */
  error?: unknown;
  /** Loads again (the query's refetch). */
  onRetry: () => void;
  /** A retry is under way: the button spins. */
  retrying?: boolean;
}

/**
 * What a list, table or panel shows when its data failed to load: the reason and a retry button. Never an empty
 * state: "no data" would claim there is nothing, when we only do not know.
 */
export function LoadError({ error, onRetry, retrying = false }: LoadErrorProps) {
  const { t } = useTranslation();
  const reason = error === undefined || error === null ? '' : describeRequestError(error, t).title;
  return (
    <Alert color="red" variant="light" role="alert" data-testid="load-error" title={t('common.loadFailed')}>
      <Group justify="space-between" gap="sm" wrap="wrap">
        <Text size="sm">{reason || t('common.loadFailedHint')}</Text>
        <Button size="xs" variant="default" loading={retrying} onClick={onRetry}>
          {t('common.retry')}
        </Button>
      </Group>
    </Alert>
  );
}
