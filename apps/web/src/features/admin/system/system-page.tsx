import '@mantine/dates/styles.css';
import { Button, Card, Group, Select, SimpleGrid, Skeleton, Text } from '@mantine/core';
import { DateTimePicker } from '@mantine/dates';
import { STATS_GRANULARITIES } from '@cc/contracts';
import { useQueryClient } from '@tanstack/react-query';
import dayjs from 'dayjs';
import { useMemo, useState } from 'react';
import { RefreshIcon } from '../../../components/icons';
import { LoadError } from '../../../components/load-error';
import { AdminPage } from '../shared/admin-page';
import { useAdminT } from '../shared/admin-i18n';
import { useCommonStatus } from './api/get-common-status';
import { useSystemInfo } from './api/get-system-info';
import { StatsCharts } from './components/stats-charts';
import { uptimeHours } from './lib/stats';

const PICKER = 'YYYY-MM-DD HH:mm';
const GRANULARITY_KEYS = {
  1800: 'system.granularity.m30',
  3600: 'system.granularity.h1',
  10800: 'system.granularity.h3',
  21600: 'system.granularity.h6',
  43200: 'system.granularity.h12',
  86400: 'system.granularity.d1',
} as const;

function Stat({ label, value }: { label: string; value: React.ReactNode }) {
  return (
    <Card withBorder padding="sm" radius="md">
      <Text size="xs" c="dimmed">
        {label}
      </Text>
      <Text fw={700} fz="xl">
        {value}
      </Text>
    </Card>
  );
}

/** /admin/system: counts, live status and the ask / request statistics over a chosen range and bucket size. */
export function SystemPage() {
  const { ta, t } = useAdminT();
  const client = useQueryClient();
  const info = useSystemInfo();
  const status = useCommonStatus();
  const [granularity, setGranularity] = useState<number>(3600);
  const [range, setRange] = useState<[string | null, string | null]>(() => [
    dayjs().subtract(1, 'day').format(PICKER),
    null,
  ]);
  const query = useMemo(
    () => ({
      granularity,
      start_time: range[0] ? dayjs(range[0]).toISOString() : undefined,
      end_time: range[1] ? dayjs(range[1]).toISOString() : undefined,
    }),
    [granularity, range],
  );
  const preset = (days: number) => setRange([dayjs().subtract(days, 'day').format(PICKER), null]);
  const zone = Intl.DateTimeFormat().resolvedOptions().timeZone;

  const s = status.data;
  const i = info.data;
  return (
    <AdminPage
      title={t('admin.systemTitle')}
      actions={
        <Button
          variant="default"
          leftSection={<RefreshIcon size={16} />}
          onClick={() => void client.invalidateQueries({ queryKey: ['admin', 'system'] })}
        >
          {ta('common.refresh')}
        </Button>
      }
    >
      {(info.error || status.error) && (
        <LoadError
          error={info.error ?? status.error}
          onRetry={() => {
            if (info.error) void info.refetch();
            if (status.error) void status.refetch();
          }}
          retrying={info.isFetching || status.isFetching}
        />
      )}
      <SimpleGrid cols={{ base: 2, sm: 3, lg: 6 }} data-testid="system-stats">
        {i && s ? (
          <>
            <Stat
              label={ta('system.activeTotalUsers')}
              value={`${s.active_user_in_5m} / ${i.total_user_count}`}
            />
            <Stat
              label={ta('system.validTotalConversations')}
              value={`${i.valid_conversation_count} / ${i.total_conversation_count}`}
            />
            <Stat label={ta('system.gpt4In3h')} value={s.gpt4_count_in_3_hours} />
            <Stat
              label={ta('system.replyStatus')}
              value={s.is_chatbot_busy ? ta('system.busy') : ta('system.idle')}
            />
            <Stat label={ta('system.waiting')} value={s.chatbot_waiting_count} />
            <Stat label={ta('system.uptime')} value={`${uptimeHours(i.startup_time)} h`} />
            <Stat label={ta('system.active1h')} value={s.active_user_in_1h} />
            <Stat label={ta('system.active1d')} value={s.active_user_in_1d} />
            {Object.entries(i.conversations_by_source ?? {}).map(([source, c]) => (
              <Stat
                key={source}
                label={ta('system.conversationsOf', { source: t(`sources.${source}`) })}
                value={`${c.valid} / ${c.total}`}
              />
            ))}
          </>
        ) : (
          Array.from({ length: 6 }, (_, k) => <Skeleton key={k} h={64} />)
        )}
      </SimpleGrid>
      <Group gap="sm" align="flex-end" wrap="wrap">
        <Select
          label={ta('system.granularityLabel')}
          data={STATS_GRANULARITIES.map((g) => ({ value: String(g), label: ta(GRANULARITY_KEYS[g]) }))}
          value={String(granularity)}
          allowDeselect={false}
          onChange={(v) => setGranularity(Number(v ?? 3600))}
          w={140}
        />
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
          placeholder={ta('system.now')}
          value={range[1]}
          onChange={(v) => setRange([range[0], v])}
          w={200}
        />
        <Button.Group>
          <Button variant="default" onClick={() => preset(1)}>
            {ta('system.last24h')}
          </Button>
          <Button variant="default" onClick={() => preset(7)}>
            {ta('system.last7d')}
          </Button>
          <Button variant="default" onClick={() => preset(30)}>
            {ta('system.last30d')}
          </Button>
        </Button.Group>
      </Group>
      <Text size="xs" c="dimmed">
        {ta('common.timeZoneHint', { zone })}
      </Text>
      <StatsCharts query={query} />
    </AdminPage>
  );
}
