import { Paper, Stack, Text, Title } from '@mantine/core';
import { useTranslation } from 'react-i18next';

/** A titled page frame for admin screens that are not built yet. */
export function AdminPagePlaceholder({ title }: { title: string }) {
  const { t } = useTranslation();
  return (
    <Stack p="md">
      <Title order={2}>{title}</Title>
      <Paper withBorder p="lg" radius="md">
        <Text c="dimmed">{t('admin.comingSoon')}</Text>
      </Paper>
    </Stack>
  );
}
