import { Group, Stack, Title } from '@mantine/core';
import type { ReactNode } from 'react';

/** The frame of every admin page: a title, the page's toolbar on the right, then the content. */
export function AdminPage({
  title,
  actions,
  children,
}: {
  title: string;
  actions?: ReactNode;
  children: ReactNode;
}) {
  return (
    <Stack p="md" gap="md">
      <Group justify="space-between" wrap="wrap" gap="sm">
        <Title order={2}>{title}</Title>
        {actions && (
          <Group gap="xs" wrap="wrap">
            {actions}
          </Group>
        )}
      </Group>
      {children}
    </Stack>
  );
}
