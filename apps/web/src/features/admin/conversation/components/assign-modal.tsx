import { Button, Group, Modal, Stack, Text } from '@mantine/core';
import { useState } from 'react';
import { useAdminT } from '../../shared/admin-i18n';
import { UserPicker } from '../../user/components/user-picker';

/** Picks the user to give the selected conversations to. */
export function AssignModal({
  opened,
  count,
  loading,
  onClose,
  onAssign,
}: {
  opened: boolean;
  count: number;
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
          <UserPicker
            label={ta('conversation.assignTo')}
            valueKind="username"
            value={username}
            onChange={(v) => {
              setUsername(v);
              setError(null);
            }}
            error={error}
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
