import { Alert, Anchor, Button, Group, List, Progress, Text } from '@mantine/core';
import type { UserRef } from '@cc/contracts';
import { useState } from 'react';
import { describeRequestError } from '../../../../lib/errors';
import { useAdminT } from '../../shared/admin-i18n';
import type { BulkResult } from '../../shared/bulk';
import { confirmAction } from '../../shared/confirm';
import type { RowId } from '../../shared/data-table';
import { useBulkUsers } from '../api/bulk-users';
import type { BulkUserAction } from '../api/bulk-users';
import { BulkSettingsModal } from './bulk-settings-modal';
import { SetGroupModal } from './set-group-modal';

export interface UserBulkBarProps {
  /** The selected users (of any page). */
  users: readonly UserRef[];
  /** How many users match the search and filters, on every page. */
  matching: number;
  /** Selects every user that matches (the page asks the server for them). */
  onSelectAll: () => Promise<void> | void;
  onSelectedChange: (next: Set<RowId>) => void;
}

interface Summary {
  action: BulkUserAction['kind'];
  result: BulkResult<UserRef>;
}

/**
 * Bulk actions over the selected users: select all that match the search, activate, deactivate, reset chat
 * status, apply settings, delete; a progress bar while they run and a summary of what succeeded and failed.
 */
export function UserBulkBar({ users, matching, onSelectAll, onSelectedChange }: UserBulkBarProps) {
  const { ta, t } = useAdminT();
  const [progress, setProgress] = useState<{ finished: number; total: number } | null>(null);
  const [summary, setSummary] = useState<Summary | null>(null);
  const [settingsOpen, setSettingsOpen] = useState(false);
  const [groupOpen, setGroupOpen] = useState(false);
  const bulk = useBulkUsers((finished, total) => setProgress({ finished, total }));
  const [selectingAll, setSelectingAll] = useState(false);

  const run = async (action: BulkUserAction) => {
    setSettingsOpen(false);
    setGroupOpen(false);
    setSummary(null);
    setProgress({ finished: 0, total: users.length });
    const result = await bulk.mutateAsync({ action, users: [...users] });
    setProgress(null);
    setSummary({ action: action.kind, result });
    // Failed users stay selected, so the admin can retry them or look at them.
    onSelectedChange(new Set(result.failed.map((f) => f.item.id)));
  };
  const handleDelete = async () => {
    const ok = await confirmAction({
      title: ta('user.deleteTitle'),
      body: ta('user.bulk.deleteConfirm', { count: users.length }),
      confirmLabel: ta('common.delete'),
      cancelLabel: ta('common.cancel'),
      danger: true,
    });
    if (ok) await run({ kind: 'delete' });
  };

  const busy = bulk.isPending;
  const unselected = matching - users.length;
  const selectAll = async () => {
    setSelectingAll(true);
    try {
      await onSelectAll();
    } finally {
      setSelectingAll(false);
    }
  };
  return (
    <>
      {(users.length > 0 || summary) && (
        <Group gap="xs" data-testid="user-bulk-actions" wrap="wrap">
          <Text size="sm">{ta('user.bulk.selected', { count: users.length })}</Text>
          {unselected > 0 && (
            <Anchor
              size="sm"
              component="button"
              disabled={selectingAll}
              onClick={() => void selectAll().catch(() => undefined)}
            >
              {ta('user.bulk.selectAll', { count: matching })}
            </Anchor>
          )}
          {users.length > 0 && (
            <>
              <Button
                size="xs"
                variant="light"
                disabled={busy}
                onClick={() => void run({ kind: 'activate' })}
              >
                {ta('user.bulk.activate')}
              </Button>
              <Button
                size="xs"
                variant="light"
                disabled={busy}
                onClick={() => void run({ kind: 'deactivate' })}
              >
                {ta('user.bulk.deactivate')}
              </Button>
              <Button
                size="xs"
                variant="light"
                disabled={busy}
                onClick={() => void run({ kind: 'resetStatus' })}
              >
                {ta('user.resetStatus')}
              </Button>
              <Button size="xs" disabled={busy} onClick={() => setSettingsOpen(true)}>
                {ta('user.bulk.settings')}
              </Button>
              <Button size="xs" disabled={busy} onClick={() => setGroupOpen(true)}>
                {ta('user.groups.setGroup')}
              </Button>
              <Button size="xs" color="red" disabled={busy} onClick={() => void handleDelete()}>
                {ta('common.delete')}
              </Button>
              <Anchor size="sm" component="button" onClick={() => onSelectedChange(new Set())}>
                {ta('conversation.clearSelection')}
              </Anchor>
            </>
          )}
        </Group>
      )}
      {progress && (
        <Progress
          value={(progress.finished / Math.max(1, progress.total)) * 100}
          aria-label={ta('conversation.progress', progress)}
          animated
        />
      )}
      {summary && (
        <Alert
          color={summary.result.failed.length > 0 ? 'orange' : 'green'}
          title={ta('user.bulk.summary', {
            action: ta(`user.bulk.actions.${summary.action}`),
            done: summary.result.done.length,
            failed: summary.result.failed.length,
          })}
          withCloseButton
          onClose={() => setSummary(null)}
          data-testid="user-bulk-summary"
        >
          {summary.result.failed.length > 0 && (
            <List size="sm">
              {summary.result.failed.map(({ item, error }) => {
                const described = describeRequestError(error, t);
                return (
                  <List.Item key={item.id}>
                    {t('common.labelled', { label: item.username, text: described.title })}
                    {described.message ? ` (${described.message})` : ''}
                  </List.Item>
                );
              })}
            </List>
          )}
        </Alert>
      )}
      <BulkSettingsModal
        key={settingsOpen ? 'open' : 'closed'}
        opened={settingsOpen}
        count={users.length}
        onClose={() => setSettingsOpen(false)}
        onApply={(patch) => void run({ kind: 'settings', patch })}
      />
      <SetGroupModal
        key={groupOpen ? 'group-open' : 'group-closed'}
        opened={groupOpen}
        count={users.length}
        onClose={() => setGroupOpen(false)}
        onApply={(groupId) => void run({ kind: 'group', groupId })}
      />
    </>
  );
}
