import {
  ActionIcon,
  Anchor,
  Badge,
  Button,
  Group,
  Menu,
  Text,
  Tooltip,
  useComputedColorScheme,
  useMantineColorScheme,
} from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { Link, useLocation, useNavigate } from 'react-router';
import { ChatIcon, LanguageIcon, MoonIcon, SunIcon, UserIcon } from '../../components/icons';
import { paths } from '../../config/paths';
import { confirmLogout, openProfileModal, openResetPasswordModal } from '../../features/auth';
import { openPreferencesModal } from '../../features/preferences';
import { LANGUAGES, LANGUAGE_NAMES, changeLanguage } from '../../i18n';
import type { Language } from '../../i18n';
import { useUser } from '../../lib/session';

export const APP_VERSION = 'v1.0.1';

function ThemeToggle() {
  const { t } = useTranslation();
  const { setColorScheme } = useMantineColorScheme();
  const computed = useComputedColorScheme('light', { getInitialValueInEffect: false });
  const next = computed === 'dark' ? 'light' : 'dark';
  const label = next === 'dark' ? t('header.switchToDark') : t('header.switchToLight');
  return (
    <Tooltip label={label}>
      <ActionIcon
        variant="default"
        size="lg"
        onClick={() => setColorScheme(next)}
        aria-label={label}
        data-testid="theme-toggle"
      >
        {computed === 'dark' ? <SunIcon /> : <MoonIcon />}
      </ActionIcon>
    </Tooltip>
  );
}

function LanguageMenu() {
  const { t, i18n } = useTranslation();
  return (
    <Menu position="bottom-end" withinPortal>
      <Menu.Target>
        <ActionIcon variant="default" size="lg" aria-label={t('header.language')} data-testid="language-menu">
          <LanguageIcon />
        </ActionIcon>
      </Menu.Target>
      <Menu.Dropdown>
        {LANGUAGES.map((language: Language) => (
          <Menu.Item
            key={language}
            onClick={() => void changeLanguage(language)}
            fw={i18n.language === language ? 700 : undefined}
            aria-current={i18n.language === language ? 'true' : undefined}
            lang={language}
          >
            {LANGUAGE_NAMES[language]}
          </Menu.Item>
        ))}
      </Menu.Dropdown>
    </Menu>
  );
}

function UserMenu({ nickname }: { nickname: string }) {
  const { t } = useTranslation();
  const navigate = useNavigate();
  return (
    <Menu position="bottom-end" withinPortal>
      <Menu.Target>
        <Button variant="default" leftSection={<UserIcon size={16} />} data-testid="user-menu" maw={180}>
          <Text truncate size="sm">
            {nickname}
          </Text>
        </Button>
      </Menu.Target>
      <Menu.Dropdown>
        <Menu.Item onClick={openProfileModal}>{t('header.profile')}</Menu.Item>
        <Menu.Item onClick={openResetPasswordModal}>{t('header.resetPassword')}</Menu.Item>
        <Menu.Item onClick={openPreferencesModal}>{t('header.preferences')}</Menu.Item>
        <Menu.Divider />
        <Menu.Item c="red" onClick={() => confirmLogout(() => void navigate(paths.login()))}>
          {t('auth.logout')}
        </Menu.Item>
      </Menu.Dropdown>
    </Menu>
  );
}

/** SPEC §1 header: name, version, greeting, root link, theme, language, user menu or not-logged-in label. */
export function AppHeader() {
  const { t } = useTranslation();
  const { data: user } = useUser();
  const location = useLocation();
  const inAdmin = location.pathname.startsWith('/admin');
  return (
    <Group h="100%" px="md" justify="space-between" wrap="nowrap" gap="sm">
      <Group gap="sm" wrap="nowrap" miw={0}>
        <Anchor component={Link} to={paths.root} underline="never" c="inherit" aria-label={t('header.home')}>
          <Group gap={8} wrap="nowrap">
            <span className="cc-logo" aria-hidden="true">
              <ChatIcon size={18} />
            </span>
            <Text fw={700} size="lg" visibleFrom="xs">
              Chat Commons
            </Text>
          </Group>
        </Anchor>
        <Badge variant="light" color="teal" tt="none" data-testid="app-version">
          {APP_VERSION}
        </Badge>
        {user && (
          <Text size="sm" c="dimmed" truncate visibleFrom="sm" data-testid="greeting">
            {t('header.greeting', { nickname: user.nickname })}
          </Text>
        )}
      </Group>
      <Group gap="xs" wrap="nowrap">
        {user?.is_superuser && (
          <Button
            component={Link}
            to={inAdmin ? paths.conversation() : paths.admin()}
            variant="subtle"
            size="compact-sm"
            visibleFrom="xs"
          >
            {inAdmin ? t('header.chat') : t('header.admin')}
          </Button>
        )}
        <ThemeToggle />
        <LanguageMenu />
        {user ? (
          <UserMenu nickname={user.nickname} />
        ) : (
          <Text size="sm" c="dimmed" data-testid="not-logged-in">
            {t('header.notLoggedIn')}
          </Text>
        )}
      </Group>
    </Group>
  );
}
