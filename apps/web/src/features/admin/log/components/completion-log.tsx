import '@mantine/dates/styles.css';
import { Anchor, Badge, Button, Group, Stack, Text, Tooltip } from '@mantine/core';
import { DateTimePicker } from '@mantine/dates';
import type { CompletionLog as CompletionLogEntry } from '@cc/contracts';
import dayjs from 'dayjs';
import { useMemo, useState } from 'react';
import { Link } from 'react-router';
import { ModelBadge } from '../../../../components/model-display';
import { paths } from '../../../../config/paths';
import { formatDateTime } from '../../../../lib/format';
import { useAdminT } from '../../shared/admin-i18n';
import { DataTable } from '../../shared/data-table';
import type { Column } from '../../shared/data-table';
import { numberProblem } from '../../shared/number-check';
import { NumberField } from '../../shared/number-field';
import { useCompletionLogs } from '../api/get-completion-logs';
import { RefreshButton } from '../../shared/refresh-button';

const PICKER = 'YYYY-MM-DD HH:mm';
/** The API's bounds of max_results. */
const MAX_RESULTS_RULE = { min: 1, max: 5000, integer: true } as const;
const OUTCOME_COLORS: Record<string, string> = {
  success: 'green',
  canceled: 'gray',
  error: 'red',
  timeout: 'orange',
};

/** Ask log entries of a time range: who asked what model when, how long it queued and took, and the outcome. */
export function CompletionLog() {
  const { ta, t, language } = useAdminT();
  const [range, setRange] = useState<[string | null, string | null]>(() => [
    dayjs().subtract(7, 'day').format(PICKER),
    null,
  ]);
  const [maxResults, setMaxResults] = useState<number>(1000);
  const query = useMemo(
    () => ({
      start_time: range[0] ? dayjs(range[0]).toISOString() : undefined,
      end_time: range[1] ? dayjs(range[1]).toISOString() : undefined,
      // A refused number shows its error and the default applies meanwhile.
      max_results: numberProblem(maxResults, MAX_RESULTS_RULE) ? 1000 : maxResults,
    }),
    [range, maxResults],
  );
  const logs = useCompletionLogs(query);
  const preset = (days: number) => setRange([dayjs().subtract(days, 'day').format(PICKER), null]);

  const columns: Column<CompletionLogEntry>[] = [
    {
      key: 'time',
      header: ta('log.time'),
      sort: (a, b) => a.time.localeCompare(b.time),
      render: (l) => <Text size="sm">{formatDateTime(l.time, language)}</Text>,
    },
    { key: 'source', header: ta('common.source'), render: (l) => t(`sources.${l.source}`) },
    {
      key: 'model',
      header: ta('common.model'),
      sort: (a, b) => a.model.localeCompare(b.model),
      render: (l) => <ModelBadge model={l.model} />,
    },
    {
      key: 'user',
      header: ta('common.user'),
      sort: (a, b) => (a.username ?? '').localeCompare(b.username ?? ''),
      render: (l) =>
        l.username ? (
          <Text size="sm">{l.username}</Text>
        ) : (
          <Text size="sm" c="dimmed">
            {l.user_id === null ? '—' : `#${l.user_id}`}
          </Text>
        ),
    },
    {
      key: 'conversation',
      header: ta('log.conversation'),
      render: (l) =>
        l.conversation_id ? (
          <Anchor
            component={Link}
            to={paths.history(l.conversation_id)}
            target="_blank"
            size="sm"
            ff="monospace"
          >
            {l.conversation_id.slice(0, 8)}
          </Anchor>
        ) : (
          '—'
        ),
    },
    {
      key: 'queue',
      header: ta('log.queueingTime'),
      sort: (a, b) => a.queueing_time - b.queueing_time,
      render: (l) => `${l.queueing_time.toFixed(1)} s`,
    },
    {
      key: 'ask',
      header: ta('log.askTime'),
      sort: (a, b) => a.ask_time - b.ask_time,
      render: (l) => `${l.ask_time.toFixed(1)} s`,
    },
    {
      key: 'outcome',
      header: ta('log.outcome'),
      sort: (a, b) => a.outcome.localeCompare(b.outcome),
      render: (l) => (
        <Tooltip label={l.error ?? ''} disabled={!l.error}>
          <Badge variant="light" color={OUTCOME_COLORS[l.outcome] ?? 'gray'}>
            {l.outcome}
          </Badge>
        </Tooltip>
      ),
    },
    {
      key: 'charged',
      header: ta('log.charged'),
      render: (l) => (l.charged ? ta('common.yes') : ta('common.no')),
    },
  ];

  return (
    <Stack gap="sm">
      <Group gap="sm" align="flex-end" wrap="wrap">
        <DateTimePicker
          label={ta('common.startTime')}
          valueFormat={PICKER}
          clearable
          value={range[0]}
          onChange={(v) => setRange([v, range[1]])}
          w={200}
        />
        <DateTimePicker
          label={ta('common.endTime')}
          valueFormat={PICKER}
          clearable
          value={range[1]}
          onChange={(v) => setRange([range[0], v])}
          w={200}
        />
        <Button.Group>
          <Button variant="default" onClick={() => preset(1)}>
            1d
          </Button>
          <Button variant="default" onClick={() => preset(7)}>
            7d
          </Button>
          <Button variant="default" onClick={() => preset(30)}>
            30d
          </Button>
        </Button.Group>
        <NumberField
          label={ta('log.maxResults')}
          {...MAX_RESULTS_RULE}
          step={100}
          value={maxResults}
          onChange={setMaxResults}
          w={140}
        />
        <RefreshButton query={logs} />
      </Group>
      <DataTable
        label={ta('log.completionTab')}
        rows={logs.data ?? []}
        columns={columns}
        rowId={(l) => l.id}
        defaultSort={{ key: 'time', desc: true }}
        minWidth={1100}
        empty={logs.isLoading ? ta('common.loading') : undefined}
        error={logs.error}
        onRetry={() => void logs.refetch()}
        retrying={logs.isFetching}
      />
    </Stack>
  );
}
