import { Button, Container, Group, Stack, Text, Title } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router';
import { paths } from '../../config/paths';
import { useUser } from '../../lib/session';

/** /home: where to go next, for visitors and users alike. */
export function HomePage() {
  const { t } = useTranslation();
  const { data: user } = useUser();
  return (
    <Container size="sm" py={64}>
      <Stack align="center" gap="lg" ta="center">
        <Title order={1} className="cc-brand-title">
          Chat Commons
        </Title>
        <Text size="lg" c="dimmed">
          {t('home.tagline')}
        </Text>
        <Group>
          {user ? (
            <>
              <Button component={Link} to={paths.conversation()} size="md">
                {t('home.startChatting')}
              </Button>
              {user.is_superuser && (
                <Button component={Link} to={paths.admin()} variant="default" size="md">
                  {t('header.admin')}
                </Button>
              )}
            </>
          ) : (
            <Button component={Link} to={paths.login()} size="md">
              {t('auth.login')}
            </Button>
          )}
        </Group>
      </Stack>
    </Container>
  );
}
