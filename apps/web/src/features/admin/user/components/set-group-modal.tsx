import { Button, Group, Modal, Select, Stack, Text } from '@mantine/core';
import { useState } from 'react';
import { useAdminT } from '../../shared/admin-i18n';
import { useGroups } from '../api/groups';

const NO_GROUP = 'none';

export interface SetGroupModalProps {
  opened: boolean;
  count: number;
  onClose: () => void;
  /** The chosen group's id, or null for no group. */
  onApply: (groupId: number | null) => void;
}

/** Which group the selected users join (or none). */
export function SetGroupModal({ opened, count, onClose, onApply }: SetGroupModalProps) {
  const { ta } = useAdminT();
  const groups = useGroups();
  const [value, setValue] = useState<string | null>(null);
  return (
    <Modal opened={opened} onClose={onClose} title={ta('user.groups.setGroupTitle', { count })}>
      <Stack gap="sm">
        <Text size="sm" c="dimmed">
          {ta('user.groups.setGroupHint')}
        </Text>
        <Select
          label={ta('user.groups.column')}
          data={[
            { value: NO_GROUP, label: ta('user.groups.noGroup') },
            ...(groups.data ?? []).map((g) => ({ value: String(g.id), label: g.name })),
          ]}
          value={value}
          onChange={setValue}
        />
        <Group justify="flex-end">
          <Button variant="default" onClick={onClose}>
            {ta('common.cancel')}
          </Button>
          <Button
            disabled={value === null}
            onClick={() => onApply(value === NO_GROUP || value === null ? null : Number(value))}
          >
            {ta('user.groups.apply')}
          </Button>
        </Group>
      </Stack>
    </Modal>
  );
}
