import {
  ActionIcon,
  Anchor,
  Badge,
  Button,
  Group,
  Menu,
  Text,
  useComputedColorScheme,
  useMantineColorScheme,
} from '@mantine/core';
import type { MantineColorScheme } from '@mantine/core';
import { useMediaQuery } from '@mantine/hooks';
import { useTranslation } from 'react-i18next';
import { Link, useLocation, useNavigate } from 'react-router';
import {
  ChatIcon,
  CheckIcon,
  LanguageIcon,
  MonitorIcon,
  MoonIcon,
  SunIcon,
  UserIcon,
} from '../../components/icons';
import { paths } from '../../config/paths';
import { confirmLogout, openProfileModal, openResetPasswordModal } from '../../features/auth';
import { openPreferencesModal } from '../../features/preferences';
import { LANGUAGES, LANGUAGE_NAMES, changeLanguage } from '../../i18n';
import type { Language } from '../../i18n';
import { useUser } from '../../lib/session';

export const APP_VERSION = 'v1.0.1';

const THEME_CHOICES = [
  { value: 'light', label: 'header.themeLight', Icon: SunIcon },
  { value: 'dark', label: 'header.themeDark', Icon: MoonIcon },
  { value: 'auto', label: 'header.themeAuto', Icon: MonitorIcon },
] as const satisfies readonly { value: MantineColorScheme; label: string; Icon: unknown }[];

/** Light, dark, or following the device (the default, SPEC §1); the choice is remembered, "follow" included. */
function ThemeMenu({ compact }: { compact: boolean }) {
  const { t } = useTranslation();
  const { colorScheme, setColorScheme } = useMantineColorScheme();
  const computed = useComputedColorScheme('light', { getInitialValueInEffect: false });
  return (
    <Menu position="bottom-end" withinPortal>
      <Menu.Target>
        <ActionIcon
          variant="default"
          size={compact ? 'md' : 'lg'}
          aria-label={t('header.theme')}
          data-testid="theme-toggle"
        >
          {computed === 'dark' ? <MoonIcon /> : <SunIcon />}
        </ActionIcon>
      </Menu.Target>
      <Menu.Dropdown>
        {THEME_CHOICES.map(({ value, label, Icon }) => (
          <Menu.Item
            key={value}
            aria-current={colorScheme === value ? 'true' : undefined}
            leftSection={<Icon size={16} />}
            rightSection={colorScheme === value ? <CheckIcon size={14} /> : null}
            onClick={() => setColorScheme(value)}
          >
            {t(label)}
          </Menu.Item>
        ))}
      </Menu.Dropdown>
    </Menu>
  );
}

function LanguageMenu({ compact }: { compact: boolean }) {
  const { t, i18n } = useTranslation();
  return (
    <Menu position="bottom-end" withinPortal>
      <Menu.Target>
        <ActionIcon
          variant="default"
          size={compact ? 'md' : 'lg'}
          aria-label={t('header.language')}
          data-testid="language-menu"
        >
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

function UserMenu({ nickname, compact }: { nickname: string; compact: boolean }) {
  const { t } = useTranslation();
  const navigate = useNavigate();
  return (
    <Menu position="bottom-end" withinPortal>
      <Menu.Target>
        {compact ? (
          // On a phone the greeting already names the user: the menu is an icon.
          <ActionIcon
            variant="default"
            size="md"
            aria-label={t('header.userMenu', { nickname })}
            data-testid="user-menu"
          >
            <UserIcon size={16} />
          </ActionIcon>
        ) : (
          <Button variant="default" leftSection={<UserIcon size={16} />} data-testid="user-menu" maw={180}>
            <Text truncate size="sm">
              {nickname}
            </Text>
          </Button>
        )}
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

/** Below Mantine's `xs` breakpoint (36em): a phone. */
const PHONE_QUERY = '(max-width: 35.99em)';

/**
 * SPEC §1 header on every page and width: name, version, greeting, root link, theme, language, user menu or
 * not-logged-in label. On a phone everything gets smaller and the greeting is shortened with an ellipsis if needed.
 */
export function AppHeader() {
  const { t } = useTranslation();
  const { data: user } = useUser();
  const location = useLocation();
  const inAdmin = location.pathname.startsWith('/admin');
  const compact = useMediaQuery(PHONE_QUERY, false, { getInitialValueInEffect: false });
  return (
    <Group h="100%" px={compact ? 'xs' : 'md'} justify="space-between" wrap="nowrap" gap={compact ? 6 : 'sm'}>
      <Group gap={compact ? 6 : 'sm'} wrap="nowrap" miw={0}>
        <Anchor component={Link} to={paths.root} underline="never" c="inherit" aria-label={t('header.home')}>
          <Group gap={compact ? 4 : 8} wrap="nowrap">
            <span className="cc-logo" aria-hidden="true">
              <ChatIcon size={18} />
            </span>
            <Text
              fw={700}
              size={compact ? 'sm' : 'lg'}
              style={{ whiteSpace: 'nowrap' }}
              data-testid="app-name"
            >
              Chat Commons
            </Text>
          </Group>
        </Anchor>
        <Badge variant="light" color="teal" tt="none" size={compact ? 'xs' : 'md'} data-testid="app-version">
          {APP_VERSION}
        </Badge>
        {user && (
          <Text size={compact ? 'xs' : 'sm'} c="dimmed" truncate miw={0} data-testid="greeting">
            {t('header.greeting', { nickname: user.nickname })}
          </Text>
        )}
      </Group>
      <Group gap={compact ? 6 : 'xs'} wrap="nowrap">
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
        <ThemeMenu compact={compact} />
        <LanguageMenu compact={compact} />
        {user ? (
          <UserMenu nickname={user.nickname} compact={compact} />
        ) : (
          <Text
            size={compact ? 'xs' : 'sm'}
            c="dimmed"
            style={{ whiteSpace: 'nowrap' }}
            data-testid="not-logged-in"
          >
            {t('header.notLoggedIn')}
          </Text>
        )}
      </Group>
    </Group>
  );
}
