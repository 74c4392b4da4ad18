import '../../styles/mantine-all.css';
import { NavLink, ScrollArea, Stack } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { Link, Outlet, useLocation } from 'react-router';
import { ADMIN_PAGES, paths } from '../../config/paths';
import { SCROLL_RESET } from './root-layout';

const TITLE_KEYS: Record<(typeof ADMIN_PAGES)[number], string> = {
  system: 'admin.systemTitle',
  user: 'admin.userTitle',
  conversation: 'admin.conversationTitle',
  machine: 'admin.machineTitle',
  task: 'admin.taskTitle',
  log: 'admin.logTitle',
  openai_settings: 'admin.openaiSettingsTitle',
  config: 'admin.configTitle',
  audit: 'admin.auditTitle',
  usage: 'admin.usageTitle',
  invite: 'admin.inviteTitle',
};

/** Admin area: a side menu of the admin pages and the page itself. */
export function AdminLayout() {
  const { t } = useTranslation();
  const { pathname } = useLocation();
  return (
    <div className="cc-admin">
      <nav className="cc-admin-nav" aria-label={t('admin.navigation')}>
        <ScrollArea h="100%">
          <Stack gap={2} p="xs" className="cc-admin-nav-list">
            {ADMIN_PAGES.map((page) => (
              <NavLink
                key={page}
                component={Link}
                to={paths.admin(page)}
                label={t(TITLE_KEYS[page])}
                active={pathname === paths.admin(page)}
              />
            ))}
          </Stack>
        </ScrollArea>
      </nav>
      <div className="cc-admin-content" {...SCROLL_RESET}>
        <Outlet />
      </div>
    </div>
  );
}
