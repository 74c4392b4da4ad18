import '@mantine/dates/styles.css';
import { Button, Group, Pagination, Select, Stack, Text, TextInput, Tooltip } from '@mantine/core';
import { DateTimePicker } from '@mantine/dates';
import { useDebouncedValue } from '@mantine/hooks';
import { AUDIT_ACTIONS, AUDIT_TARGET_TYPES } from '@cc/contracts';
import type { AuditAction, AuditEntry, AuditTargetType } from '@cc/contracts';
import dayjs from 'dayjs';
import { useMemo, useState } from 'react';
import { DownloadIcon } from '../../../components/icons';
import type { AuditQuery } from '../../../config/admin-paths';
import { formatDateTime } from '../../../lib/format';
import { AdminPage } from '../shared/admin-page';
import { useAdminT } from '../shared/admin-i18n';
import { i18n } from '../../../i18n';
import { DataTable } from '../shared/data-table';
import type { Column } from '../shared/data-table';
import { notifySuccess } from '../shared/notify';
import { useDownloadAuditCsv } from './api/download-audit-csv';
import { useAuditLog } from './api/get-audit-log';
import { auditNames } from './lib/audit-fields';
import { ACTION_KEYS, changeLines } from './lib/audit-text';
import { RefreshButton } from '../shared/refresh-button';

const PICKER = 'YYYY-MM-DD HH:mm';
/** Entries per page (fetched from the server one page at a time). */
const PAGE_SIZE = 50;

/** /admin/audit: who changed what and when (and every login), filtered, paged, exported as CSV. */
export function AuditPage() {
  const { ta, t, language } = useAdminT();
  const exists = (key: string) => i18n.exists(key);
  const [actor, setActor] = useState('');
  const [target, setTarget] = useState('');
  const [action, setAction] = useState<AuditAction | null>(null);
  const [targetType, setTargetType] = useState<AuditTargetType | null>(null);
  const [range, setRange] = useState<[string | null, string | null]>([null, null]);
  const [page, setPage] = useState(1);
  const [debouncedActor] = useDebouncedValue(actor.trim(), 300);
  const [debouncedTarget] = useDebouncedValue(target.trim(), 300);

  const filters = useMemo<AuditQuery>(
    () => ({
      actor: debouncedActor || undefined,
      target: debouncedTarget || undefined,
      action: action ?? undefined,
      target_type: targetType ?? undefined,
      start_time: range[0] ? dayjs(range[0]).toISOString() : undefined,
      end_time: range[1] ? dayjs(range[1]).toISOString() : undefined,
    }),
    [debouncedActor, debouncedTarget, action, targetType, range],
  );
  // A new filter starts again on the first page.
  const [pageFilters, setPageFilters] = useState(filters);
  if (pageFilters !== filters) {
    setPageFilters(filters);
    setPage(1);
  }
  const log = useAuditLog({ ...filters, offset: (page - 1) * PAGE_SIZE, limit: PAGE_SIZE });
  const csv = useDownloadAuditCsv();
  const total = log.data?.total ?? 0;
  const words = {
    none: ta('audit.noChanges'),
    yes: ta('common.yes'),
    no: ta('common.no'),
    secret: ta('audit.secret'),
  };

  const columns: Column<AuditEntry>[] = [
    {
      key: 'time',
      header: ta('audit.time'),
      render: (e) => (
        <Tooltip label={e.time}>
          <Text size="sm">{formatDateTime(e.time, language)}</Text>
        </Tooltip>
      ),
    },
    {
      key: 'actor',
      header: ta('audit.actor'),
      render: (e) => (
        <Stack gap={0}>
          <Text size="sm">{e.actor_name}</Text>
          {e.actor_id === null && (
            <Text size="xs" c="dimmed">
              {ta('audit.failedLogin')}
            </Text>
          )}
        </Stack>
      ),
    },
    { key: 'address', header: ta('audit.address'), render: (e) => e.address ?? '—' },
    {
      key: 'action',
      header: ta('audit.action'),
      render: (e) => (
        <Text size="sm" fw={500} c={e.outcome === 'success' ? undefined : 'red'}>
          {ta(ACTION_KEYS[e.action])}
        </Text>
      ),
    },
    {
      key: 'target',
      header: ta('audit.target'),
      render: (e) => (
        // The config and the credentials are one of a kind: their type names them.
        <Stack gap={0}>
          {e.target_type !== 'config' && e.target_type !== 'credentials' && (
            <Text size="sm">{e.target_label ?? e.target_id ?? '—'}</Text>
          )}
          <Text size="xs" c="dimmed">
            {ta(`audit.targets.${e.target_type}`)}
          </Text>
        </Stack>
      ),
    },
    {
      key: 'changes',
      header: ta('audit.changes'),
      render: (e) => {
        const lines = changeLines(e.changes, words, auditNames(e.action, ta, t, exists));
        return lines.length === 0 ? (
          '—'
        ) : (
          <Stack gap={2}>
            {lines.map((line) => (
              <Text key={line} size="xs" ff="monospace" style={{ wordBreak: 'break-word' }}>
                {line}
              </Text>
            ))}
          </Stack>
        );
      },
    },
    {
      key: 'outcome',
      header: ta('audit.outcome'),
      render: (e) => (
        <Text size="sm" c={e.outcome === 'success' ? undefined : 'red'}>
          {ta(`audit.outcomes.${e.outcome}`)}
        </Text>
      ),
    },
  ];

  const download = () => csv.mutate(filters, { onSuccess: () => notifySuccess(ta('audit.downloaded')) });

  return (
    <AdminPage
      title={t('admin.auditTitle')}
      actions={
        <>
          <RefreshButton query={log} />
          <Button leftSection={<DownloadIcon size={16} />} loading={csv.isPending} onClick={download}>
            {ta('audit.downloadCsv')}
          </Button>
        </>
      }
    >
      <Text size="sm" c="dimmed">
        {ta('audit.retentionHint')}
      </Text>
      <Group gap="sm" align="flex-end" wrap="wrap" role="search" aria-label={ta('audit.filters')}>
        <TextInput
          label={ta('audit.actor')}
          placeholder={ta('audit.actorPlaceholder')}
          value={actor}
          onChange={(e) => setActor(e.currentTarget.value)}
          w={160}
        />
        <Select
          label={ta('audit.action')}
          placeholder={ta('audit.anyAction')}
          clearable
          data={AUDIT_ACTIONS.map((a) => ({ value: a, label: ta(ACTION_KEYS[a]) }))}
          value={action}
          onChange={(v) => setAction(v)}
          w={240}
        />
        <Select
          label={ta('audit.targetType')}
          placeholder={ta('audit.anyTarget')}
          clearable
          data={AUDIT_TARGET_TYPES.map((tt) => ({ value: tt, label: ta(`audit.targets.${tt}`) }))}
          value={targetType}
          onChange={(v) => setTargetType(v)}
          w={150}
        />
        <TextInput
          label={ta('audit.target')}
          placeholder={ta('audit.targetPlaceholder')}
          value={target}
          onChange={(e) => setTarget(e.currentTarget.value)}
          w={180}
        />
        <DateTimePicker
          label={ta('common.startTime')}
          valueFormat={PICKER}
          clearable
          value={range[0]}
          onChange={(v) => setRange([v, range[1]])}
          w={190}
        />
        <DateTimePicker
          label={ta('common.endTime')}
          valueFormat={PICKER}
          clearable
          value={range[1]}
          onChange={(v) => setRange([range[0], v])}
          w={190}
        />
      </Group>
      <DataTable
        label={t('admin.auditTitle')}
        rows={log.data?.items ?? []}
        columns={columns}
        rowId={(e) => e.id}
        pageSizes={[PAGE_SIZE]}
        minWidth={1100}
        empty={log.isLoading ? ta('common.loading') : ta('audit.empty')}
        error={log.error}
        onRetry={() => void log.refetch()}
        retrying={log.isFetching}
      />
      <Group justify="space-between">
        <Text size="sm" c="dimmed">
          {ta('audit.count', { count: total })}
        </Text>
        {total > PAGE_SIZE && (
          <Pagination total={Math.ceil(total / PAGE_SIZE)} value={page} onChange={setPage} size="sm" />
        )}
      </Group>
    </AdminPage>
  );
}
