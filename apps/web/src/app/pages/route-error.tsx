import { Button, Center, Code, Stack, Text, Title } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { useRouteError } from 'react-router';

/** Last resort when a page throws while rendering. */
export function RouteError() {
  const { t } = useTranslation();
  const error = useRouteError();
  return (
    <Center py={80} px="md">
      <Stack align="center">
        <Title order={2}>{t('errors.unknownError')}</Title>
        <Code block maw={600}>
          {error instanceof Error ? error.message : String(error)}
        </Code>
        <Text c="dimmed">{t('common.reloadHint')}</Text>
        <Button onClick={() => window.location.reload()}>{t('common.reload')}</Button>
      </Stack>
    </Center>
  );
}
