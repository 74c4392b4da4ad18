import { Button, Center, Paper, Stack, Text, Title } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router';
import { paths } from '../../config/paths';

/** /error/403 and /error/404. */
export function ErrorPage({ status }: { status: 403 | 404 }) {
  const { t } = useTranslation();
  return (
    <Center py={80} px="md">
      <Paper withBorder p="xl" radius="md" maw={480} w="100%">
        <Stack align="center" ta="center">
          <Title order={1} data-testid="error-status">
            {status}
          </Title>
          <Text size="lg">{status === 403 ? t('errors.accessDenied') : t('errors.notFound')}</Text>
          <Button component={Link} to={paths.root} variant="light">
            {t('common.backHome')}
          </Button>
        </Stack>
      </Paper>
    </Center>
  );
}
