import '@mantine/charts/styles.css';
import { BarChart, LineChart } from '@mantine/charts';
import { Card, Loader, ScrollArea, SimpleGrid, Table, Text, Title } from '@mantine/core';
import dayjs from 'dayjs';
import { useMemo } from 'react';
import type { StatsQuery } from '../../../../config/admin-paths';
import { modelDisplay } from '../../../../components/model-display';
import { LoadError } from '../../../../components/load-error';
import { useAdminT } from '../../shared/admin-i18n';
import { useAskStats, useRequestStats } from '../api/get-stats';
import { chartAxes } from '../lib/chart-axes';
import type { ChartAxes, UnitSeries } from '../lib/chart-axes';
import { askChartData, requestChartData } from '../lib/stats';
import type { ChartRow } from '../lib/stats';

const PALETTE = [
  'teal.6',
  'violet.6',
  'blue.6',
  'orange.6',
  'pink.6',
  'cyan.6',
  'grape.6',
  'lime.6',
  'indigo.6',
  'red.6',
];

/** Bucket labels in the viewer's zone; with day buckets the time is left out. */
function labelled(rows: ChartRow[], granularity: number) {
  const format = granularity >= 86_400 ? 'YYYY-MM-DD' : 'MM-DD HH:mm';
  return rows.map((row) => ({ ...row, label: dayjs(row.time).format(format) }));
}

function ChartCard({ title, children }: { title: string; children: React.ReactNode }) {
  return (
    <Card withBorder padding="md" radius="md">
      <Title order={4} mb="sm">
        {title}
      </Title>
      {children}
    </Card>
  );
}

/** A line chart whose y axes each show one kind of value, named beside the axis. */
function UnitLineChart({ data, series }: { data: Record<string, unknown>[]; series: UnitSeries[] }) {
  const { ta } = useAdminT();
  const axes = chartAxes(series);
  const axisName = (kind: ChartAxes['left']) => ta(`system.axes.${kind}`);
  return (
    <LineChart
      h={300}
      data={data}
      dataKey="label"
      withLegend
      legendProps={{ verticalAlign: 'bottom' }}
      yAxisLabel={axisName(axes.left)}
      withRightYAxis={axes.right !== null}
      rightYAxisLabel={axes.right ? axisName(axes.right) : undefined}
      series={axes.series}
    />
  );
}

/**
 * Ask statistics (count per source/model, users, queueing and ask time) and request statistics (count, users, elapsed
 * per route).
 */
export function StatsCharts({ query }: { query: StatsQuery }) {
  const { ta, t } = useAdminT();
  const ask = useAskStats(query);
  const request = useRequestStats(query);
  const askData = useMemo(() => askChartData(ask.data ?? []), [ask.data]);
  const requestData = useMemo(() => requestChartData(request.data ?? []), [request.data]);
  const seriesLabel = (source: string, model: string) =>
    `${t(`sources.${source}`)} · ${modelDisplay(model).label}`;

  if (ask.isLoading || request.isLoading) return <Loader size="sm" />;
  if (ask.error || request.error)
    return (
      <LoadError
        error={ask.error ?? request.error}
        onRetry={() => {
          if (ask.error) void ask.refetch();
          if (request.error) void request.refetch();
        }}
        retrying={ask.isFetching || request.isFetching}
      />
    );
  const empty = <Text c="dimmed">{ta('system.noData')}</Text>;

  return (
    <SimpleGrid cols={{ base: 1, xl: 2 }}>
      <ChartCard title={ta('system.askCount')}>
        {askData.counts.length === 0 ? (
          empty
        ) : (
          <BarChart
            h={300}
            data={labelled(askData.counts, query.granularity)}
            dataKey="label"
            type="stacked"
            yAxisLabel={ta('system.axes.count')}
            withLegend
            legendProps={{ verticalAlign: 'bottom' }}
            series={askData.series.map((s, i) => ({
              name: s.key,
              label: seriesLabel(s.source, s.model),
              color: PALETTE[i % PALETTE.length],
            }))}
          />
        )}
      </ChartCard>
      <ChartCard title={ta('system.askUsersAndTimes')}>
        {askData.totals.length === 0 ? (
          empty
        ) : (
          <UnitLineChart
            data={labelled(askData.totals, query.granularity)}
            series={[
              { name: 'users', label: ta('system.users'), color: 'blue.6', unit: 'users' },
              { name: 'avgAskSeconds', label: ta('system.avgAskSeconds'), color: 'teal.6', unit: 'seconds' },
              {
                name: 'avgQueueSeconds',
                label: ta('system.avgQueueSeconds'),
                color: 'orange.6',
                unit: 'seconds',
              },
            ]}
          />
        )}
      </ChartCard>
      <ChartCard title={ta('system.requestCount')}>
        {requestData.totals.length === 0 ? (
          empty
        ) : (
          <UnitLineChart
            data={labelled(requestData.totals, query.granularity)}
            series={[
              { name: 'count', label: ta('system.requests'), color: 'blue.6', unit: 'requests' },
              { name: 'users', label: ta('system.users'), color: 'violet.6', unit: 'users' },
              {
                name: 'avgElapsedMs',
                label: ta('system.avgElapsedMs'),
                color: 'orange.6',
                unit: 'milliseconds',
              },
            ]}
          />
        )}
      </ChartCard>
      <ChartCard title={ta('system.routes')}>
        {requestData.routes.length === 0 ? (
          empty
        ) : (
          // The viewport takes focus so the keyboard can scroll a long list of routes.
          <ScrollArea
            h={300}
            viewportProps={{ tabIndex: 0, role: 'region', 'aria-label': ta('system.routes') }}
          >
            <Table striped aria-label={ta('system.routes')}>
              <Table.Thead>
                <Table.Tr>
                  <Table.Th>{ta('system.route')}</Table.Th>
                  <Table.Th>{ta('system.requests')}</Table.Th>
                  <Table.Th>{ta('system.users')}</Table.Th>
                  <Table.Th>{ta('system.avgElapsedMs')}</Table.Th>
                </Table.Tr>
              </Table.Thead>
              <Table.Tbody>
                {requestData.routes.map((r) => (
                  <Table.Tr key={r.route}>
                    <Table.Td>
                      <Text size="xs" ff="monospace">
                        {r.route}
                      </Text>
                    </Table.Td>
                    <Table.Td>{r.count}</Table.Td>
                    <Table.Td>{r.users}</Table.Td>
                    <Table.Td>{r.avgElapsedMs}</Table.Td>
                  </Table.Tr>
                ))}
              </Table.Tbody>
            </Table>
          </ScrollArea>
        )}
      </ChartCard>
    </SimpleGrid>
  );
}
