import {
  ActionIcon,
  Alert,
  Anchor,
  Badge,
  Button,
  Group,
  Menu,
  Progress,
  Select,
  Text,
  TextInput,
  Tooltip,
  UnstyledButton,
} from '@mantine/core';
import { SOURCES } from '@cc/contracts';
import type { ChatSource, ConversationRead, SyncSummary } from '@cc/contracts';
import { useDebouncedValue } from '@mantine/hooks';
import { useState } from 'react';
import { DotsIcon } from '../../../components/icons';
import { ModelBadge } from '../../../components/model-display';
import { focusAfterRemoval, fromMenu, openMenuButton } from '../../../lib/focus';
import { formatDateTime } from '../../../lib/format';
import { paths } from '../../../config/paths';
import { AdminPage } from '../shared/admin-page';
import { useAdminT } from '../shared/admin-i18n';
import type { BulkResult } from '../shared/bulk';
import { confirmAction } from '../shared/confirm';
import { DataTable } from '../shared/data-table';
import type { Column, RowId } from '../shared/data-table';
import { notifySuccess, notifyWarning } from '../shared/notify';
import { UserPicker } from '../user/components/user-picker';
import { useRevokeConversationShares } from './api/revoke-shares';
import { useAssignConversations } from './api/assign-conversations';
import { useAllConversations } from './api/get-all-conversations';
import { useInvalidateConversations } from './api/invalidate-conversations';
import { useSyncConversations } from './api/sync-conversations';
import { useVanishConversations } from './api/vanish-conversations';
import { AssignModal } from './components/assign-modal';
import { HistoryDrawer } from './components/history-drawer';
import { RefreshButton } from '../shared/refresh-button';
import { useRemotePaging } from '../shared/use-remote-paging';

type Validity = 'all' | 'valid' | 'invalid';

/** /admin/conversation: every conversation, filters, history, invalidate / destroy / assign (bulk), manual sync. */
export function ConversationPage() {
  const { ta, t, language } = useAdminT();
  const [source, setSource] = useState<ChatSource | null>(null);
  const [validity, setValidity] = useState<Validity>('all');
  const [userId, setUserId] = useState<string | null>(null);
  const [title, setTitle] = useState('');
  const [query] = useDebouncedValue(title.trim(), 300);
  const [selected, setSelected] = useState<Set<RowId>>(new Set());
  const [viewing, setViewing] = useState<string | null>(null);
  const [assignIds, setAssignIds] = useState<string[] | null>(null);
  const [progress, setProgress] = useState<{ finished: number; total: number } | null>(null);
  const [syncSummary, setSyncSummary] = useState<SyncSummary | null>(null);

  const filter = {
    source: source ?? undefined,
    is_valid: validity === 'all' ? undefined : validity === 'valid',
    user_id: userId ? Number(userId) : undefined,
    q: query || undefined,
  };
  const paging = useRemotePaging(JSON.stringify(filter), { sort: { key: 'update_time', desc: true } });
  const conversations = useAllConversations({ ...filter, ...paging.params });
  const onProgress = (finished: number, total: number) => setProgress({ finished, total });
  const invalidate = useInvalidateConversations(onProgress);
  const vanish = useVanishConversations(onProgress);
  const revokeShares = useRevokeConversationShares();
  const assign = useAssignConversations(onProgress);
  const sync = useSyncConversations();

  const rows = conversations.data?.items ?? [];
  /** Whose a conversation is, in words: the username, else "unassigned" or the id of a user since removed. */
  const ownerOf = (c: ConversationRead) =>
    c.username ?? (c.user_id === null ? ta('conversation.unassigned') : `#${c.user_id}`);
  /** A row's name for its controls: the title, else whose it is and when it began (never its id). */
  const nameOf = (c: ConversationRead) =>
    c.title ||
    ta('conversation.untitledOf', { user: ownerOf(c), time: formatDateTime(c.create_time, language) });

  const report = (result: BulkResult<string>, doneKey: 'invalidated' | 'destroyed' | 'assigned') => {
    setProgress(null);
    setSelected(new Set());
    if (result.done.length > 0) notifySuccess(ta(`conversation.${doneKey}`, { count: result.done.length }));
    if (result.failed.length > 0)
      notifyWarning(ta('conversation.someFailed', { count: result.failed.length }));
  };

  const handleInvalidate = async (ids: string[]) => {
    const ok = await confirmAction({
      title: ta('conversation.invalidate'),
      body: ta('conversation.invalidateConfirm', { count: ids.length }),
      confirmLabel: ta('conversation.invalidate'),
      cancelLabel: ta('common.cancel'),
      danger: true,
    });
    if (ok) report(await invalidate.mutateAsync(ids), 'invalidated');
  };
  const handleRevokeShares = async (c: ConversationRead) => {
    const ok = await confirmAction({
      title: ta('conversation.revokeShares'),
      body: ta('conversation.revokeSharesConfirm', { title: c.title || ta('conversation.untitled') }),
      confirmLabel: ta('conversation.revokeShares'),
      cancelLabel: ta('common.cancel'),
      danger: true,
    });
    if (!ok) return;
    const count = await revokeShares.mutateAsync(c.conversation_id);
    notifySuccess(ta('conversation.sharesRevoked', { count }));
  };
  const handleVanish = async (ids: string[]) => {
    // (From a row's menu: the focus moves to the next row's once this one is gone.)
    const refocus = focusAfterRemoval(openMenuButton(), 'table');
    const ok = await confirmAction({
      title: ta('conversation.destroy'),
      body: ta('conversation.destroyConfirm', { count: ids.length }),
      confirmLabel: ta('conversation.destroy'),
      cancelLabel: ta('common.cancel'),
      danger: true,
    });
    if (!ok) return;
    report(await vanish.mutateAsync(ids), 'destroyed');
    refocus();
  };
  const handleAssign = async (username: string) => {
    const ids = assignIds ?? [];
    setAssignIds(null);
    report(await assign.mutateAsync({ ids, username }), 'assigned');
  };
  const handleSync = async () => {
    const ok = await confirmAction({
      title: ta('conversation.sync'),
      body: ta('conversation.syncConfirm'),
      confirmLabel: ta('conversation.sync'),
      cancelLabel: ta('common.cancel'),
    });
    if (ok) setSyncSummary(await sync.mutateAsync());
  };

  const selectedIds = [...selected].map(String);
  const busy = invalidate.isPending || vanish.isPending || assign.isPending;

  const columns: Column<ConversationRead>[] = [
    {
      key: 'title',
      header: ta('conversation.title'),
      serverSort: true,
      render: (c) => (
        <Tooltip label={c.conversation_id}>
          <UnstyledButton
            onClick={fromMenu(() => setViewing(c.conversation_id))}
            aria-label={ta('conversation.viewOf', { title: nameOf(c) })}
          >
            <Text size="sm" c="blue" lineClamp={1} maw={360}>
              {c.title || ta('conversation.untitled')}
            </Text>
          </UnstyledButton>
        </Tooltip>
      ),
    },
    { key: 'source', header: ta('common.source'), render: (c) => t(`sources.${c.source}`) },
    {
      key: 'model',
      header: ta('common.model'),
      render: (c) => <ModelBadge model={c.current_model} />,
    },
    {
      key: 'user',
      header: ta('conversation.user'),
      render: (c) =>
        c.username ? (
          <Text size="sm">{c.username}</Text>
        ) : (
          <Text size="sm" c="dimmed">
            {ownerOf(c)}
          </Text>
        ),
    },
    {
      key: 'create_time',
      header: ta('conversation.createTime'),
      serverSort: true,
      render: (c) => <Text size="sm">{formatDateTime(c.create_time, language)}</Text>,
    },
    {
      key: 'update_time',
      header: ta('conversation.updateTime'),
      serverSort: true,
      render: (c) => <Text size="sm">{formatDateTime(c.update_time, language)}</Text>,
    },
    {
      key: 'valid',
      header: ta('conversation.valid'),
      render: (c) => (
        <Badge variant="light" color={c.is_valid ? 'green' : 'gray'}>
          {c.is_valid ? ta('common.yes') : ta('common.no')}
        </Badge>
      ),
    },
    {
      key: 'public',
      header: ta('conversation.public'),
      render: (c) => (c.is_public ? ta('common.yes') : ta('common.no')),
    },
    {
      key: 'actions',
      header: ta('common.actions'),
      sticky: true,
      render: (c) => (
        <Menu position="bottom-end">
          <Menu.Target>
            <ActionIcon variant="subtle" aria-label={ta('conversation.actionsOf', { title: nameOf(c) })}>
              <DotsIcon size={16} />
            </ActionIcon>
          </Menu.Target>
          <Menu.Dropdown>
            <Menu.Item onClick={fromMenu(() => setViewing(c.conversation_id))}>
              {ta('conversation.view')}
            </Menu.Item>
            <Menu.Item component="a" href={paths.history(c.conversation_id)} target="_blank">
              {ta('conversation.openInNewTab')}
            </Menu.Item>
            <Menu.Item onClick={fromMenu(() => setAssignIds([c.conversation_id]))}>
              {ta('conversation.assign')}
            </Menu.Item>
            <Menu.Item
              disabled={!c.is_public}
              onClick={fromMenu(() => void handleRevokeShares(c).catch(() => undefined))}
            >
              {ta('conversation.revokeShares')}
            </Menu.Item>
            <Menu.Divider />
            <Menu.Item
              color="orange"
              disabled={!c.is_valid}
              onClick={fromMenu(() => void handleInvalidate([c.conversation_id]))}
            >
              {ta('conversation.invalidate')}
            </Menu.Item>
            <Menu.Item c="red" onClick={fromMenu(() => void handleVanish([c.conversation_id]))}>
              {ta('conversation.destroy')}
            </Menu.Item>
          </Menu.Dropdown>
        </Menu>
      ),
    },
  ];

  return (
    <AdminPage
      title={t('admin.conversationTitle')}
      actions={
        <>
          <RefreshButton query={conversations} />
          <Button variant="light" loading={sync.isPending} onClick={() => void handleSync()}>
            {ta('conversation.sync')}
          </Button>
        </>
      }
    >
      <Group gap="sm" wrap="wrap" align="flex-end">
        <TextInput
          label={ta('conversation.searchTitle')}
          value={title}
          onChange={(e) => setTitle(e.currentTarget.value)}
          maxLength={256}
          w={240}
        />
        <Select
          label={ta('common.source')}
          clearable
          placeholder={ta('common.all')}
          data={SOURCES.map((s) => ({ value: s, label: t(`sources.${s}`) }))}
          value={source}
          onChange={(v) => setSource(v)}
          w={160}
        />
        <Select
          label={ta('conversation.valid')}
          allowDeselect={false}
          data={[
            { value: 'all', label: ta('common.all') },
            { value: 'valid', label: ta('conversation.validOnly') },
            { value: 'invalid', label: ta('conversation.invalidOnly') },
          ]}
          value={validity}
          onChange={(v) => setValidity(v ?? 'all')}
          w={150}
        />
        <UserPicker
          label={ta('conversation.user')}
          clearable
          placeholder={ta('common.all')}
          valueKind="id"
          value={userId}
          onChange={setUserId}
          w={200}
        />
      </Group>
      {syncSummary && (
        <Alert
          color={syncSummary.stopped ? 'yellow' : 'blue'}
          title={ta(syncSummary.stopped ? 'conversation.syncStopped' : 'conversation.syncDone')}
          withCloseButton
          onClose={() => setSyncSummary(null)}
          data-testid="sync-summary"
        >
          {syncSummary.stopped
            ? ta(`conversation.syncStops.${syncSummary.stopped}`, { ...syncSummary })
            : ta('conversation.syncSummary', { ...syncSummary })}
        </Alert>
      )}
      {selected.size > 0 && (
        <Group gap="xs" data-testid="bulk-actions">
          <Text size="sm">{ta('conversation.selectedCount', { count: selected.size })}</Text>
          <Button size="xs" color="orange" disabled={busy} onClick={() => void handleInvalidate(selectedIds)}>
            {ta('conversation.invalidate')}
          </Button>
          <Button size="xs" color="red" disabled={busy} onClick={() => void handleVanish(selectedIds)}>
            {ta('conversation.destroy')}
          </Button>
          <Button size="xs" disabled={busy} onClick={() => setAssignIds(selectedIds)}>
            {ta('conversation.assign')}
          </Button>
          <Anchor size="sm" component="button" onClick={() => setSelected(new Set())}>
            {ta('conversation.clearSelection')}
          </Anchor>
        </Group>
      )}
      {progress && (
        <Progress
          value={(progress.finished / Math.max(1, progress.total)) * 100}
          aria-label={ta('conversation.progress', progress)}
          animated
        />
      )}
      <DataTable
        label={t('admin.conversationTitle')}
        rows={rows}
        columns={columns}
        rowId={(c) => c.conversation_id}
        selected={selected}
        onSelectedChange={setSelected}
        remote={paging.remote(conversations.data?.total ?? 0)}
        minWidth={1100}
        empty={conversations.isLoading ? ta('common.loading') : undefined}
        error={conversations.error}
        onRetry={() => void conversations.refetch()}
        retrying={conversations.isFetching}
      />
      <HistoryDrawer conversationId={viewing} onClose={() => setViewing(null)} />
      <AssignModal
        key={assignIds?.join(',') ?? 'closed'}
        opened={!!assignIds}
        count={assignIds?.length ?? 0}
        loading={assign.isPending}
        onClose={() => setAssignIds(null)}
        onAssign={(username) => void handleAssign(username)}
      />
    </AdminPage>
  );
}
