import { ActionIcon, Anchor, Button, Group, Menu, Text } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { Link, useLocation, useNavigate } from 'react-router';
import { UserIcon } from '../../components/icons';
import { paths } from '../../config/paths';
import { confirmLogout, openProfileModal, openResetPasswordModal } from '../../features/auth';
import { openPreferencesModal } from '../../features/preferences';
import { fromMenu } from '../../lib/focus';
import { useUser } from '../../lib/session';
import { LanguageMenu, ThemeMenu } from './header-menus';
import { Brand, NotLoggedIn, VersionBadge, useCompactHeader } from './header-parts';

/** The way between the chat and the admin console, for a superuser: a button beside the menus, in the menu on a phone. */
interface AdminSwitch {
  to: string;
  label: string;
}

function UserMenu({
  nickname,
  compact,
  adminSwitch,
}: {
  nickname: string;
  compact: boolean;
  adminSwitch: AdminSwitch | null;
}) {
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
        {/* Only on a phone (rendered, not hidden by CSS: a hidden first item kept the menu from its keys). */}
        {compact && adminSwitch && (
          <>
            <Menu.Item component={Link} to={adminSwitch.to} data-testid="admin-switch-item">
              {adminSwitch.label}
            </Menu.Item>
            <Menu.Divider />
          </>
        )}
        <Menu.Item onClick={fromMenu(openProfileModal)}>{t('header.profile')}</Menu.Item>
        <Menu.Item onClick={fromMenu(openResetPasswordModal)}>{t('header.resetPassword')}</Menu.Item>
        <Menu.Item onClick={fromMenu(openPreferencesModal)}>{t('header.preferences')}</Menu.Item>
        <Menu.Divider />
        <Menu.Item c="red" onClick={() => confirmLogout(() => void navigate(paths.login()))}>
          {t('auth.logout')}
        </Menu.Item>
      </Menu.Dropdown>
    </Menu>
  );
}

/**
 * SPEC §1 header on every page and width: name, version, greeting, root link, theme, language, user menu or
 * not-logged-in label. On a phone everything gets smaller and the greeting is shortened with an ellipsis if needed.
 */
export function AppHeader() {
  const { t } = useTranslation();
  const { data: user } = useUser();
  const location = useLocation();
  const inAdmin = location.pathname.startsWith('/admin');
  const adminSwitch: AdminSwitch | null = user?.is_superuser
    ? inAdmin
      ? { to: paths.conversation(), label: t('header.chat') }
      : { to: paths.admin(), label: t('header.admin') }
    : null;
  const compact = useCompactHeader();
  return (
    <Group h="100%" px={compact ? 'xs' : 'md'} justify="space-between" wrap="nowrap" gap={compact ? 6 : 'sm'}>
      <Group gap={compact ? 6 : 'sm'} wrap="nowrap" miw={0}>
        <Anchor component={Link} to={paths.root} underline="never" c="inherit" aria-label={t('header.home')}>
          <Brand compact={compact} />
        </Anchor>
        <VersionBadge compact={compact} />
        {user && (
          <Text size={compact ? 'xs' : 'sm'} c="dimmed" truncate miw={0} data-testid="greeting">
            {t('header.greeting', { nickname: user.nickname })}
          </Text>
        )}
      </Group>
      <Group gap={compact ? 6 : 'xs'} wrap="nowrap">
        {adminSwitch && (
          <Button component={Link} to={adminSwitch.to} variant="subtle" size="compact-sm" visibleFrom="xs">
            {adminSwitch.label}
          </Button>
        )}
        <ThemeMenu compact={compact} />
        <LanguageMenu compact={compact} />
        {user ? (
          <UserMenu nickname={user.nickname} compact={compact} adminSwitch={adminSwitch} />
        ) : (
          <NotLoggedIn compact={compact} />
        )}
      </Group>
    </Group>
  );
}
