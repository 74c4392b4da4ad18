import { ActionIcon, Alert, Badge, Button, Group, Modal, Select, Text, Tooltip } from '@mantine/core';
import { MACHINE_STATUSES, SOURCES } from '@cc/contracts';
import type { MachineInfo } from '@cc/contracts';
import { useMemo, useState } from 'react';
import { PencilIcon, PlusIcon, TrashIcon } from '../../../components/icons';
import { formatDateTime, formatRelative } from '../../../lib/format';
import { AdminPage } from '../shared/admin-page';
import { useAdminT } from '../shared/admin-i18n';
import { confirmAction } from '../shared/confirm';
import { DataTable } from '../shared/data-table';
import type { Column } from '../shared/data-table';
import { notifySuccess } from '../shared/notify';
import { useCheckMachines } from './api/check-machines';
import { useDeleteMachine } from './api/delete-machine';
import { useMachines } from './api/get-machines';
import { MachineForm } from './components/machine-form';
import { RefreshButton } from '../shared/refresh-button';

const STATUS_COLORS = { online: 'green', offline: 'orange', disabled: 'gray' } as const;

type Editing = { mode: 'add' } | { mode: 'edit'; machine: MachineInfo };

/** /admin/machine: upstream servers with their live load; add, edit, delete, probe now. */
export function MachinePage() {
  const { ta, t, language } = useAdminT();
  const machines = useMachines();
  const remove = useDeleteMachine();
  const check = useCheckMachines();
  const [editing, setEditing] = useState<Editing | null>(null);
  const [source, setSource] = useState<string | null>(null);
  const [status, setStatus] = useState<string | null>(null);
  const [checkResult, setCheckResult] = useState<string | null>(null);

  const rows = useMemo(
    () =>
      (machines.data ?? []).filter(
        (m) => (!source || m.source === source) && (!status || m.status === status),
      ),
    [machines.data, source, status],
  );

  const handleDelete = async (machine: MachineInfo) => {
    const ok = await confirmAction({
      title: ta('machine.deleteTitle'),
      body: ta('machine.deleteConfirm', { hostname: machine.hostname }),
      confirmLabel: ta('common.delete'),
      cancelLabel: ta('common.cancel'),
      danger: true,
    });
    if (!ok) return;
    await remove.mutateAsync(machine.id);
    notifySuccess(ta('common.deleted'));
  };

  const handleCheck = async () => {
    setCheckResult(await check.mutateAsync());
  };

  const columns: Column<MachineInfo>[] = [
    { key: 'id', header: '#', render: (m) => m.id, sort: (a, b) => a.id - b.id, width: 50 },
    { key: 'source', header: ta('common.source'), render: (m) => t(`sources.${m.source}`) },
    {
      key: 'hostname',
      header: ta('machine.hostname'),
      sort: (a, b) => a.hostname.localeCompare(b.hostname),
      render: (m) => (
        <div>
          <Text size="sm" fw={600}>
            {m.hostname}
          </Text>
          <Text size="xs" c="dimmed" ff="monospace">
            {m.use_tls ? 'https' : 'http'}://{m.ip_address}:{m.port}
            {m.base_path}
          </Text>
        </div>
      ),
    },
    {
      key: 'status',
      header: ta('machine.status'),
      sort: (a, b) => a.status.localeCompare(b.status),
      render: (m) => (
        <Badge variant="light" color={STATUS_COLORS[m.status]}>
          {ta(`machine.statuses.${m.status}`)}
        </Badge>
      ),
    },
    {
      key: 'load',
      header: ta('machine.load'),
      sort: (a, b) => a.in_flight - b.in_flight,
      render: (m) => (
        <Text size="sm">
          {ta('machine.loadValue', {
            inFlight: m.in_flight,
            max: m.max_concurrency,
            queue: m.queue_length,
          })}
        </Text>
      ),
    },
    { key: 'weight', header: ta('machine.weight'), render: (m) => m.weight },
    {
      key: 'check',
      header: ta('machine.lastCheck'),
      render: (m) =>
        m.last_check_time ? (
          <Tooltip label={formatDateTime(m.last_check_time, language)}>
            <Text size="sm">{formatRelative(m.last_check_time, language)}</Text>
          </Tooltip>
        ) : (
          <Text size="sm" c="dimmed">
            {ta('common.never')}
          </Text>
        ),
    },
    {
      key: 'error',
      header: ta('machine.lastError'),
      render: (m) =>
        m.last_error ? (
          <Text size="xs" c="red" lineClamp={2} title={m.last_error}>
            {m.last_error}
          </Text>
        ) : (
          <Text size="sm" c="dimmed">
            {ta('common.none')}
          </Text>
        ),
    },
    {
      key: 'created',
      header: ta('machine.createdAt'),
      sort: (a, b) => a.created_at.localeCompare(b.created_at),
      render: (m) => <Text size="sm">{formatDateTime(m.created_at, language)}</Text>,
    },
    {
      key: 'actions',
      header: ta('common.actions'),
      sticky: true,
      render: (m) => (
        <Group gap={4} wrap="nowrap">
          <ActionIcon
            variant="subtle"
            aria-label={ta('machine.editOf', { hostname: m.hostname })}
            onClick={() => setEditing({ mode: 'edit', machine: m })}
          >
            <PencilIcon size={16} />
          </ActionIcon>
          <ActionIcon
            variant="subtle"
            color="red"
            aria-label={ta('machine.deleteOf', { hostname: m.hostname })}
            onClick={() => void handleDelete(m)}
          >
            <TrashIcon size={16} />
          </ActionIcon>
        </Group>
      ),
    },
  ];

  return (
    <AdminPage
      title={t('admin.machineTitle')}
      actions={
        <>
          <Select
            aria-label={ta('common.source')}
            placeholder={ta('common.source')}
            clearable
            w={150}
            data={SOURCES.map((s) => ({ value: s, label: t(`sources.${s}`) }))}
            value={source}
            onChange={setSource}
          />
          <Select
            aria-label={ta('machine.status')}
            placeholder={ta('machine.status')}
            clearable
            w={130}
            data={MACHINE_STATUSES.map((s) => ({ value: s, label: ta(`machine.statuses.${s}`) }))}
            value={status}
            onChange={setStatus}
          />
          <RefreshButton query={machines} />
          <Button variant="light" loading={check.isPending} onClick={() => void handleCheck()}>
            {ta('machine.checkNow')}
          </Button>
          <Button leftSection={<PlusIcon size={16} />} onClick={() => setEditing({ mode: 'add' })}>
            {ta('machine.add')}
          </Button>
        </>
      }
    >
      <Text size="sm" c="dimmed">
        {ta('machine.hint')}
      </Text>
      {checkResult !== null && (
        <Alert
          color="blue"
          title={ta('machine.checkResult')}
          withCloseButton
          onClose={() => setCheckResult(null)}
          data-testid="check-result"
        >
          {checkResult}
        </Alert>
      )}
      <DataTable
        label={t('admin.machineTitle')}
        rows={rows}
        columns={columns}
        rowId={(m) => m.id}
        defaultSort={{ key: 'id', desc: false }}
        minWidth={1200}
        empty={machines.isLoading ? ta('common.loading') : ta('machine.empty')}
        error={machines.error}
        onRetry={() => void machines.refetch()}
        retrying={machines.isFetching}
      />
      <Modal
        opened={!!editing}
        onClose={() => setEditing(null)}
        title={editing?.mode === 'edit' ? ta('machine.editTitle') : ta('machine.addTitle')}
        size="lg"
      >
        {editing?.mode === 'add' && <MachineForm onDone={() => setEditing(null)} />}
        {editing?.mode === 'edit' && (
          <MachineForm key={editing.machine.id} machine={editing.machine} onDone={() => setEditing(null)} />
        )}
      </Modal>
    </AdminPage>
  );
}
