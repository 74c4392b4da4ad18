import '@mantine/charts/styles.css';
import '@mantine/dates/styles.css';
import { BarChart } from '@mantine/charts';
import { Badge, Button, Card, CloseButton, Group, Loader, Tabs, Text, Title } from '@mantine/core';
import { DateTimePicker } from '@mantine/dates';
import { USAGE_GROUPS } from '@cc/contracts';
import type { UsageGroup, UsageRow } from '@cc/contracts';
import dayjs from 'dayjs';
import { useMemo, useState } from 'react';
import { useSearchParams } from 'react-router';
import { DownloadIcon } from '../../../components/icons';
import { LoadError } from '../../../components/load-error';
import { modelDisplay } from '../../../components/model-display';
import type { UsageQuery } from '../../../config/admin-paths';
import { AdminPage } from '../shared/admin-page';
import { useAdminT } from '../shared/admin-i18n';
import { DataTable } from '../shared/data-table';
import type { Column } from '../shared/data-table';
import { notifySuccess } from '../shared/notify';
import { useDownloadUsageCsv, useUsage } from './api/get-usage';
import { formatCount, formatSeconds, usageSeries } from './lib/usage';
import { RefreshButton } from '../shared/refresh-button';
import { formatMoney } from '../../../lib/money';

const PICKER = 'YYYY-MM-DD HH:mm';
const GROUP_KEYS = { user: 'usage.byUser', model: 'usage.byModel', day: 'usage.byDay' } as const;

function useColumns(group: UsageGroup, currency: string): Column<UsageRow>[] {
  const { ta, t, language } = useAdminT();
  const count = (key: 'asks' | 'input_tokens' | 'output_tokens' | 'estimated_asks' | 'errors') => ({
    key,
    header: ta(`usage.columns.${key}`),
    render: (r: UsageRow) => formatCount(r[key], language),
    sort: (a: UsageRow, b: UsageRow) => a[key] - b[key],
  });
  const secs = (key: 'avg_queue_seconds' | 'avg_answer_seconds') => ({
    key,
    header: ta(`usage.columns.${key}`),
    render: (r: UsageRow) => formatSeconds(r[key], language),
    sort: (a: UsageRow, b: UsageRow) => a[key] - b[key],
  });
  const keyColumns: Record<UsageGroup, Column<UsageRow>[]> = {
    user: [
      {
        key: 'user',
        header: ta('usage.columns.user'),
        render: (r) => r.username ?? ta('usage.deletedUser', { id: r.user_id ?? '—' }),
        sort: (a, b) => (a.username ?? '').localeCompare(b.username ?? ''),
      },
    ],
    model: [
      {
        key: 'model',
        header: ta('usage.columns.model'),
        render: (r) => `${r.source ? t(`sources.${r.source}`) : ''} · ${modelDisplay(r.model).label}`,
        sort: (a, b) => `${a.source}${a.model}`.localeCompare(`${b.source}${b.model}`),
      },
    ],
    day: [
      {
        key: 'day',
        header: ta('usage.columns.day'),
        render: (r) => r.day,
        sort: (a, b) => (a.day ?? '').localeCompare(b.day ?? ''),
      },
    ],
  };
  return [
    ...keyColumns[group],
    count('asks'),
    count('input_tokens'),
    count('output_tokens'),
    count('estimated_asks'),
    secs('avg_queue_seconds'),
    secs('avg_answer_seconds'),
    count('errors'),
    {
      key: 'cost',
      header: ta('usage.columns.cost'),
      render: (r) => formatMoney(r.cost, currency, language),
      sort: (a, b) => a.cost - b.cost,
    },
  ];
}

function UsageTable({ query }: { query: UsageQuery }) {
  const { ta } = useAdminT();
  const report = useUsage(query);
  const columns = useColumns(query.group, report.data?.currency ?? 'USD');
  return (
    <DataTable
      label={ta(GROUP_KEYS[query.group])}
      rows={report.data?.rows ?? []}
      columns={columns}
      rowId={(r) => `${r.user_id}|${r.source}|${r.model}|${r.day}`}
      defaultSort={query.group === 'day' ? { key: 'day', desc: false } : { key: 'asks', desc: true }}
      minWidth={900}
      empty={report.isLoading ? ta('common.loading') : ta('usage.empty')}
      error={report.error}
      onRetry={() => void report.refetch()}
      retrying={report.isFetching}
    />
  );
}

/** Tokens per UTC day, input and output stacked: one unit (tokens) on the one axis. */
function UsageChart({ query }: { query: UsageQuery }) {
  const { ta } = useAdminT();
  const report = useUsage({ ...query, group: 'day' });
  const data = useMemo(
    () => (report.data ? usageSeries(report.data.rows, report.data.start, report.data.end) : []),
    [report.data],
  );
  return (
    <Card withBorder padding="md" radius="md">
      <Title order={4} mb="sm">
        {ta('usage.chartTitle')}
      </Title>
      {report.isLoading ? (
        <Loader size="sm" />
      ) : report.error ? (
        <LoadError error={report.error} onRetry={() => void report.refetch()} retrying={report.isFetching} />
      ) : (
        <BarChart
          h={280}
          data={data}
          dataKey="day"
          type="stacked"
          withLegend
          legendProps={{ verticalAlign: 'bottom' }}
          yAxisLabel={ta('usage.tokensAxis')}
          series={[
            { name: 'input_tokens', label: ta('usage.columns.input_tokens'), color: 'teal.6' },
            { name: 'output_tokens', label: ta('usage.columns.output_tokens'), color: 'violet.6' },
          ]}
        />
      )}
    </Card>
  );
}

/** /admin/usage: asks, tokens and times by user, model and day, a chart over time, CSV; `?user_id=` for one user. */
export function UsagePage() {
  const { ta, t } = useAdminT();
  const [params, setParams] = useSearchParams();
  const userId = Number(params.get('user_id')) || undefined;
  const [group, setGroup] = useState<UsageGroup>(userId ? 'day' : 'user');
  const [range, setRange] = useState<[string | null, string | null]>([null, null]);
  const query = useMemo<UsageQuery>(
    () => ({
      group,
      start: range[0] ? dayjs(range[0]).toISOString() : undefined,
      end: range[1] ? dayjs(range[1]).toISOString() : undefined,
      user_id: userId,
    }),
    [group, range, userId],
  );
  const current = useUsage(query);
  const csv = useDownloadUsageCsv();
  const userLabel = useUsage({ ...query, group: 'user' }, !!userId).data?.rows[0]?.username ?? `#${userId}`;
  const download = () => csv.mutate(query, { onSuccess: () => notifySuccess(ta('usage.downloaded')) });

  return (
    <AdminPage
      title={t('admin.usageTitle')}
      actions={
        <>
          <RefreshButton query={current} />
          <Button leftSection={<DownloadIcon size={16} />} loading={csv.isPending} onClick={download}>
            {ta('usage.downloadCsv')}
          </Button>
        </>
      }
    >
      <Text size="sm" c="dimmed">
        {ta('usage.hint')}
      </Text>
      <Group gap="sm" align="flex-end" wrap="wrap" role="search" aria-label={ta('usage.filters')}>
        <DateTimePicker
          label={ta('common.startTime')}
          placeholder={ta('usage.defaultStart')}
          valueFormat={PICKER}
          clearable
          value={range[0]}
          onChange={(v) => setRange([v, range[1]])}
          w={190}
        />
        <DateTimePicker
          label={ta('common.endTime')}
          placeholder={ta('usage.defaultEnd')}
          valueFormat={PICKER}
          clearable
          value={range[1]}
          onChange={(v) => setRange([range[0], v])}
          w={190}
        />
        {userId && (
          <Badge
            size="lg"
            variant="light"
            tt="none"
            rightSection={
              <CloseButton
                size="xs"
                aria-label={ta('usage.allUsers')}
                onClick={() => setParams((p) => (p.delete('user_id'), p))}
              />
            }
          >
            {ta('usage.oneUser', { user: userLabel })}
          </Badge>
        )}
      </Group>
      <UsageChart query={query} />
      <Tabs value={group} onChange={(v) => v && setGroup(v as UsageGroup)}>
        <Tabs.List>
          {USAGE_GROUPS.map((g) => (
            <Tabs.Tab key={g} value={g}>
              {ta(GROUP_KEYS[g])}
            </Tabs.Tab>
          ))}
        </Tabs.List>
      </Tabs>
      <UsageTable query={query} />
    </AdminPage>
  );
}
