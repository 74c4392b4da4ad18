import { Button, Group, Modal, Select, Stack, Text } from '@mantine/core';
import type { UserReadAdmin } from '@cc/contracts';
import { useState } from 'react';
import { useAdminT } from '../../shared/admin-i18n';

/** Picks the user to give the selected conversations to. */
export function AssignModal({
  opened,
  count,
  users,
  loading,
  onClose,
  onAssign,
}: {
  opened: boolean;
  count: number;
  users: readonly UserReadAdmin[];
  loading: boolean;
  onClose: () => void;
  onAssign: (username: string) => void;
}) {
  const { ta, t } = useAdminT();
  const [username, setUsername] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  return (
    <Modal opened={opened} onClose={onClose} title={ta('conversation.assignTitle', { count })}>
      <form
        onSubmit={(e) => {
          e.preventDefault();
          if (!username) {
            setError(t('errors.noUserSelected'));
            return;
          }
          onAssign(username);
        }}
      >
        <Stack>
          <Text size="sm">{ta('conversation.assignHint')}</Text>
          <Select
            label={ta('conversation.assignTo')}
            searchable
            data={users.map((u) => ({ value: u.username, label: `${u.username} (${u.nickname})` }))}
            value={username}
            onChange={(v) => {
              setUsername(v);
              setError(null);
            }}
            error={error}
            comboboxProps={{ withinPortal: true }}
          />
          <Group justify="flex-end">
            <Button variant="default" onClick={onClose}>
              {ta('common.cancel')}
            </Button>
            <Button type="submit" loading={loading}>
              {ta('conversation.assign')}
            </Button>
          </Group>
        </Stack>
      </form>
    </Modal>
  );
}
