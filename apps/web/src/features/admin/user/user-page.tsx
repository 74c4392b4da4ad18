import {
  ActionIcon,
  Badge,
  Button,
  Drawer,
  Group,
  Menu,
  Select,
  Text,
  TextInput,
  Tooltip,
} from '@mantine/core';
import type { UserReadAdmin, UserRef } from '@cc/contracts';
import { useDebouncedValue } from '@mantine/hooks';
import { useState } from 'react';
import { Link } from 'react-router';
import { ChartIcon, DotsIcon, PencilIcon, PlusIcon } from '../../../components/icons';
import type { UserFilter } from '../../../config/admin-paths';
import { paths } from '../../../config/paths';
import { focusAfterRemoval, fromMenu, openMenuButton } from '../../../lib/focus';
import { formatDateTime, formatRelative } from '../../../lib/format';
import { AdminPage } from '../shared/admin-page';
import { useAdminT } from '../shared/admin-i18n';
import { confirmAction } from '../shared/confirm';
import { RefreshButton } from '../shared/refresh-button';
import { useRemotePaging } from '../shared/use-remote-paging';
import { DataTable } from '../shared/data-table';
import type { Column, RowId } from '../shared/data-table';
import { notifySuccess } from '../shared/notify';
import { useDeleteUser } from './api/delete-user';
import { useGroups } from './api/groups';
import { getUserRefs, useUsers } from './api/get-users';
import { useResetChatStatus } from './api/reset-chat-status';
import { GroupManager } from './components/group-manager';
import { LimitsSummary } from './components/limits-summary';
import { UserBasicForm } from './components/user-basic-form';
import { UserBulkBar } from './components/user-bulk-bar';
import { UserSettingsForm } from './components/user-settings-form';
import { isExpired } from './lib/limits';

type Editing =
  | { mode: 'create' }
  | { mode: 'groups' }
  | { mode: 'basic'; user: UserReadAdmin }
  | { mode: 'settings'; user: UserReadAdmin };

const STATUS_COLORS = { asking: 'blue', queueing: 'yellow', idling: 'gray', unknown: 'gray' } as const;

/** /admin/user: users with chat status, activity and limits; create, edit, settings, reset status, delete. */
export function UserPage() {
  const { ta, t, language } = useAdminT();
  const deleteUser = useDeleteUser();
  const resetStatus = useResetChatStatus();
  const [search, setSearch] = useState('');
  const [q] = useDebouncedValue(search.trim(), 300);
  const [editing, setEditing] = useState<Editing | null>(null);
  const [selected, setSelected] = useState<Set<RowId>>(new Set());
  /** Names of the users selected on other pages (or by "select all"), for the bulk actions. */
  const [selectedRefs, setSelectedRefs] = useState<Map<number, UserRef>>(new Map());
  const groups = useGroups();
  const groupNames = new Map((groups.data ?? []).map((g) => [g.id, g.name]));
  /** A group id, 'none' (in no group), or null (any). */
  const [groupFilter, setGroupFilter] = useState<string | null>(null);

  // Searched, filtered, sorted and paged by the server.
  const filter: UserFilter = {
    q: q || undefined,
    group: groupFilter === null ? undefined : groupFilter === 'none' ? 'none' : Number(groupFilter),
  };
  const paging = useRemotePaging(JSON.stringify(filter), { sort: { key: 'id', desc: false } });
  const users = useUsers({ ...filter, ...paging.params });
  const rows = users.data?.items ?? [];

  const changeSelection = (next: Set<RowId>) => {
    const refs = new Map<number, UserRef>();
    for (const id of next) {
      const ref = rows.find((u) => u.id === id) ?? selectedRefs.get(Number(id));
      if (ref) refs.set(ref.id, { id: ref.id, username: ref.username, nickname: ref.nickname });
    }
    setSelectedRefs(refs);
    setSelected(next);
  };
  const selectAllMatching = async () => {
    const refs = await getUserRefs(filter);
    setSelectedRefs(new Map(refs.map((r) => [r.id, r])));
    setSelected(new Set(refs.map((r) => r.id)));
  };

  const handleDelete = async (user: UserReadAdmin) => {
    const refocus = focusAfterRemoval(openMenuButton(), 'table');
    const ok = await confirmAction({
      title: ta('user.deleteTitle'),
      body: ta('user.deleteConfirm', { username: user.username }),
      confirmLabel: ta('common.delete'),
      cancelLabel: ta('common.cancel'),
      danger: true,
    });
    if (!ok) return;
    await deleteUser.mutateAsync(user.id);
    notifySuccess(ta('common.deleted'));
    refocus();
  };

  const handleResetStatus = async (user: UserReadAdmin) => {
    await resetStatus.mutateAsync(user.id);
    notifySuccess(ta('user.statusReset', { username: user.username }));
  };

  // Expiry as of the list's last fetch (refetches move it on): render must not read the clock.
  const now = users.dataUpdatedAt;
  const columns: Column<UserReadAdmin>[] = [
    { key: 'id', header: '#', render: (u) => u.id, serverSort: true, width: 60 },
    {
      key: 'username',
      header: ta('user.nicknameUsername'),
      serverSort: true,
      render: (u) => (
        <div style={{ minWidth: 0 }}>
          <Group gap={4} wrap="nowrap">
            <Text size="sm" fw={600} truncate>
              {u.nickname}
            </Text>
            {!u.is_active && (
              <Badge size="xs" color="gray" variant="light">
                {ta('user.inactive')}
              </Badge>
            )}
            {u.password_reset_required && (
              <Tooltip label={ta('user.passwordResetRequiredHint')} multiline w={260}>
                <Badge size="xs" color="orange" variant="light" tabIndex={0}>
                  {ta('user.passwordResetRequired')}
                </Badge>
              </Tooltip>
            )}
            {u.is_superuser && (
              <Badge size="xs" color="violet" variant="light">
                {ta('user.superuser')}
              </Badge>
            )}
            {u.is_verified && (
              <Badge size="xs" color="teal" variant="light">
                {ta('user.verified')}
              </Badge>
            )}
          </Group>
          <Text size="xs" c="dimmed" truncate title={`${u.username} · ${u.email}`}>
            <span data-testid="username">{u.username}</span> · {u.email}
          </Text>
        </div>
      ),
    },
    {
      key: 'status',
      header: ta('user.chatStatus'),
      render: (u) => {
        const expired =
          isExpired(u.setting.openai_web.valid_until, now) ||
          isExpired(u.setting.openai_api.valid_until, now);
        return (
          <Group gap={4}>
            <Badge variant="light" color={STATUS_COLORS[u.setting.openai_web_chat_status]}>
              {t(`chatStatus.${u.setting.openai_web_chat_status}`)}
            </Badge>
            {expired && (
              <Badge variant="outline" color="red">
                {ta('user.expired')}
              </Badge>
            )}
          </Group>
        );
      },
    },
    {
      key: 'last_active',
      header: ta('user.lastActive'),
      serverSort: true,
      // At most two lines whatever the time says, and wide enough that "2 minutes ago" fits in them (at 88 px it
      // showed "2 minute…"); the full date is in the tooltip.
      width: 104,
      render: (u) =>
        u.last_active_time ? (
          <Tooltip label={formatDateTime(u.last_active_time, language)}>
            <Text size="sm" lineClamp={2}>
              {formatRelative(u.last_active_time, language)}
            </Text>
          </Tooltip>
        ) : (
          <Text size="sm" c="dimmed" lineClamp={2}>
            {ta('user.neverActive')}
          </Text>
        ),
    },
    {
      key: 'limits',
      header: ta('user.limits'),
      render: (u) => <LimitsSummary setting={u.setting} />,
    },
    {
      key: 'group',
      header: ta('user.groupAndRemark'),
      width: 160,
      serverSort: true,
      // The group, and under it the remark: one column keeps the table within 1280 px.
      render: (u) => (
        <div style={{ minWidth: 0 }}>
          <Text size="sm" c={u.group_id === null ? 'dimmed' : undefined} data-testid="user-group" truncate>
            {u.group_id === null ? ta('common.none') : (groupNames.get(u.group_id) ?? `#${u.group_id}`)}
          </Text>
          <Text size="xs" c="dimmed" lineClamp={1} title={u.remark ?? undefined}>
            {u.remark || ta('common.empty')}
          </Text>
        </div>
      ),
    },
    {
      key: 'actions',
      header: ta('common.actions'),
      width: 124,
      sticky: true,
      render: (u) => (
        <Group gap={4} wrap="nowrap">
          <Tooltip label={ta('usage.viewUsage')}>
            <ActionIcon
              variant="subtle"
              component={Link}
              to={`${paths.admin('usage')}?user_id=${u.id}`}
              aria-label={ta('user.usageOf', { username: u.username })}
            >
              <ChartIcon size={16} />
            </ActionIcon>
          </Tooltip>
          <Tooltip label={ta('user.editBasic')}>
            <ActionIcon
              variant="subtle"
              aria-label={ta('user.editBasicOf', { username: u.username })}
              onClick={() => setEditing({ mode: 'basic', user: u })}
            >
              <PencilIcon size={16} />
            </ActionIcon>
          </Tooltip>
          <Menu position="bottom-end" withinPortal>
            <Menu.Target>
              <ActionIcon variant="subtle" aria-label={ta('user.moreActionsOf', { username: u.username })}>
                <DotsIcon size={16} />
              </ActionIcon>
            </Menu.Target>
            <Menu.Dropdown>
              <Menu.Item onClick={fromMenu(() => setEditing({ mode: 'settings', user: u }))}>
                {ta('user.editSettings')}
              </Menu.Item>
              <Menu.Item onClick={() => void handleResetStatus(u)}>{ta('user.resetStatus')}</Menu.Item>
              <Menu.Divider />
              <Menu.Item c="red" onClick={fromMenu(() => void handleDelete(u))}>
                {ta('common.delete')}
              </Menu.Item>
            </Menu.Dropdown>
          </Menu>
        </Group>
      ),
    },
  ];

  const drawerTitle =
    editing?.mode === 'create'
      ? ta('user.createTitle')
      : editing?.mode === 'basic'
        ? ta('user.editBasicTitle', { username: editing.user.username })
        : editing?.mode === 'settings'
          ? ta('user.editSettingsTitle', { username: editing.user.username })
          : editing?.mode === 'groups'
            ? ta('user.groups.title')
            : '';

  return (
    <AdminPage
      title={t('admin.userTitle')}
      actions={
        <>
          <TextInput
            aria-label={ta('user.search')}
            placeholder={ta('user.search')}
            value={search}
            onChange={(e) => setSearch(e.currentTarget.value)}
            w={240}
          />
          <Select
            aria-label={ta('user.groups.filter')}
            placeholder={ta('user.groups.any')}
            clearable
            data={[
              { value: 'none', label: ta('user.groups.noGroup') },
              ...(groups.data ?? []).map((g) => ({ value: String(g.id), label: g.name })),
            ]}
            value={groupFilter}
            onChange={setGroupFilter}
            w={160}
          />
          <Button variant="default" onClick={() => setEditing({ mode: 'groups' })}>
            {ta('user.groups.open')}
          </Button>
          <RefreshButton query={users} />
          <Button leftSection={<PlusIcon size={16} />} onClick={() => setEditing({ mode: 'create' })}>
            {ta('user.create')}
          </Button>
        </>
      }
    >
      <UserBulkBar
        users={[...selectedRefs.values()]}
        matching={users.data?.total ?? 0}
        onSelectAll={selectAllMatching}
        onSelectedChange={changeSelection}
      />
      <DataTable
        label={t('admin.userTitle')}
        rows={rows}
        columns={columns}
        rowId={(u) => u.id}
        selected={selected}
        onSelectedChange={changeSelection}
        remote={paging.remote(users.data?.total ?? 0)}
        minWidth={960}
        empty={users.isLoading ? ta('common.loading') : undefined}
        error={users.error}
        onRetry={() => void users.refetch()}
        retrying={users.isFetching}
      />
      <Drawer
        opened={!!editing}
        onClose={() => setEditing(null)}
        position="right"
        size="min(720px, 100%)"
        title={drawerTitle}
      >
        {editing?.mode === 'create' && <UserBasicForm onDone={() => setEditing(null)} />}
        {editing?.mode === 'groups' && <GroupManager />}
        {editing?.mode === 'basic' && (
          <UserBasicForm key={editing.user.id} user={editing.user} onDone={() => setEditing(null)} />
        )}
        {editing?.mode === 'settings' && (
          <UserSettingsForm key={editing.user.id} user={editing.user} onDone={() => setEditing(null)} />
        )}
      </Drawer>
    </AdminPage>
  );
}
