import { ActionIcon, Button, Group, Stack, Table, Text, Tooltip } from '@mantine/core';
import type { UserGroupRead } from '@cc/contracts';
import { useRef, useState } from 'react';
import { PencilIcon, PlusIcon } from '../../../../components/icons';
import { LoadError } from '../../../../components/load-error';
import { useAdminT } from '../../shared/admin-i18n';
import { confirmAction } from '../../shared/confirm';
import { notifySuccess } from '../../shared/notify';
import { useDeleteGroup, useGroups } from '../api/groups';
import { GroupForm } from './group-form';
import { LimitsSummary } from './limits-summary';

/** The settings a template gives, in the shape the limits summary reads. */
function templateSetting(g: UserGroupRead) {
  return {
    id: g.id,
    user_id: 0,
    credits: g.budgets?.credits ?? -1,
    daily_budget: g.budgets?.daily_budget ?? -1,
    monthly_budget: g.budgets?.monthly_budget ?? -1,
    openai_web_chat_status: 'idling' as const,
    openai_web: g.openai_web,
    openai_api: { ...g.openai_api, custom_openai_api_settings: { url: null, key: null } },
  };
}

/** The groups: their members and limits; add, edit (changes every member at once), delete. */
export function GroupManager() {
  const { ta } = useAdminT();
  const groups = useGroups();
  const remove = useDeleteGroup();
  const [editing, setEditing] = useState<{ group?: UserGroupRead } | null>(null);
  const addRef = useRef<HTMLButtonElement>(null);

  if (editing)
    return (
      <GroupForm key={editing.group?.id ?? 'new'} group={editing.group} onDone={() => setEditing(null)} />
    );

  const handleDelete = async (g: UserGroupRead, button: HTMLElement) => {
    // Once the row is gone the focus goes to the next group's Delete, else the one before's, else Add group.
    const buttons = Array.from(
      button.closest('tbody')?.querySelectorAll<HTMLElement>('[data-delete-group]') ?? [],
    );
    const at = buttons.indexOf(button);
    const neighbours = at < 0 ? [] : [buttons[at + 1], buttons[at - 1]];
    const ok = await confirmAction({
      title: ta('user.groups.deleteTitle'),
      body: ta('user.groups.deleteConfirm', { name: g.name, count: g.member_count }),
      confirmLabel: ta('common.delete'),
      cancelLabel: ta('common.cancel'),
      danger: true,
    });
    if (!ok) return;
    // A refusal is told by the shell's request error handler; the row and the focus stay.
    const deleted = await remove.mutateAsync(g.id).then(
      () => true,
      () => false,
    );
    if (!deleted) return;
    notifySuccess(ta('common.deleted'));
    (neighbours.find((b) => b?.isConnected) ?? addRef.current)?.focus();
  };

  return (
    <Stack gap="sm">
      <Text size="sm" c="dimmed">
        {ta('user.groups.hint')}
      </Text>
      <Group justify="flex-end">
        <Button ref={addRef} leftSection={<PlusIcon size={16} />} onClick={() => setEditing({})}>
          {ta('user.groups.create')}
        </Button>
      </Group>
      {groups.error ? (
        <LoadError error={groups.error} onRetry={() => void groups.refetch()} retrying={groups.isFetching} />
      ) : (
        <Table aria-label={ta('user.groups.title')} withTableBorder>
          <Table.Thead>
            <Table.Tr>
              <Table.Th>{ta('user.groups.name')}</Table.Th>
              <Table.Th>{ta('user.groups.members')}</Table.Th>
              <Table.Th>{ta('user.limits')}</Table.Th>
              <Table.Th>{ta('common.actions')}</Table.Th>
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {(groups.data ?? []).length === 0 && (
              <Table.Tr>
                <Table.Td colSpan={4}>
                  <Text c="dimmed" ta="center" size="sm">
                    {groups.isLoading ? ta('common.loading') : ta('user.groups.none')}
                  </Text>
                </Table.Td>
              </Table.Tr>
            )}
            {(groups.data ?? []).map((g) => (
              <Table.Tr key={g.id}>
                <Table.Td>{g.name}</Table.Td>
                <Table.Td>{g.member_count}</Table.Td>
                <Table.Td>
                  <LimitsSummary setting={templateSetting(g)} />
                </Table.Td>
                <Table.Td>
                  <Group gap={4} wrap="nowrap">
                    <Tooltip label={ta('common.edit')}>
                      <ActionIcon
                        variant="subtle"
                        aria-label={ta('user.groups.editOf', { name: g.name })}
                        onClick={() => setEditing({ group: g })}
                      >
                        <PencilIcon size={16} />
                      </ActionIcon>
                    </Tooltip>
                    <Button
                      size="compact-xs"
                      variant="subtle"
                      color="red"
                      aria-label={ta('user.groups.deleteOf', { name: g.name })}
                      onClick={(e) => void handleDelete(g, e.currentTarget)}
                      data-delete-group
                    >
                      {ta('common.delete')}
                    </Button>
                  </Group>
                </Table.Td>
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      )}
    </Stack>
  );
}
