import { AppShell } from '@mantine/core';
import { useEffect, useState } from 'react';
import type { CSSProperties, MouseEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { Outlet, useLocation } from 'react-router';
import { focusMainContent } from '../../lib/focus';
import { LoginNotice } from '../pages/login-route';
import { RequestErrorBridge } from '../request-error-bridge';
import { AppHeader } from './app-header';
import { HEADER_HEIGHT } from './header-parts';

/**
 * Marks a layout's scroll container: ScrollToTop resets it on every navigation. Layouts that stay mounted across
 * pages (the admin area) scroll inside their own container, which would otherwise keep the last page's position.
 */
export const SCROLL_RESET = { 'data-scroll-reset': '' } as const;

/** SPEC §2: navigating scrolls to the top: the window and every scroll container marked with SCROLL_RESET. */
function ScrollToTop() {
  const { pathname } = useLocation();
  useEffect(() => {
    window.scrollTo(0, 0);
    for (const el of document.querySelectorAll<HTMLElement>('[data-scroll-reset]')) {
      el.scrollTop = 0;
      el.scrollLeft = 0;
    }
  }, [pathname]);
  return null;
}

/** Off screen (still read and focusable) until focused, then shown over the header's top-left corner. */
const SKIP_HIDDEN: CSSProperties = {
  position: 'absolute',
  width: 1,
  height: 1,
  overflow: 'hidden',
  clipPath: 'inset(50%)',
  whiteSpace: 'nowrap',
};
const SKIP_SHOWN: CSSProperties = {
  position: 'fixed',
  top: 8,
  left: 8,
  zIndex: 1000,
  padding: '8px 12px',
  borderRadius: 4,
  background: 'var(--mantine-color-body)',
  color: 'var(--mantine-color-text)',
  boxShadow: 'var(--mantine-shadow-md)',
  outline: '2px solid var(--mantine-primary-color-filled)',
};

/**
 * The page's first Tab stop: skips the header, to the message box on the chat page (when one is shown and enabled),
 * else to the main content.
 */
function SkipLink() {
  const { t } = useTranslation();
  const { pathname } = useLocation();
  const [focused, setFocused] = useState(false);
  const onChatPage = pathname === '/conversation';
  const skip = (e: MouseEvent<HTMLAnchorElement>) => {
    e.preventDefault();
    const target = focusMainContent();
    if (target?.id === 'app-main') target.scrollIntoView({ block: 'start' });
  };
  return (
    <a
      href="#app-main"
      className="hide-in-print"
      style={focused ? SKIP_SHOWN : SKIP_HIDDEN}
      onFocus={() => setFocused(true)}
      onBlur={() => setFocused(false)}
      onClick={skip}
      data-testid="skip-link"
    >
      {t(onChatPage ? 'common.skipToMessageBox' : 'common.skipToMain')}
    </a>
  );
}

export function RootLayout() {
  return (
    <AppShell header={{ height: HEADER_HEIGHT }} padding={0}>
      <ScrollToTop />
      <RequestErrorBridge />
      <LoginNotice />
      <SkipLink />
      <AppShell.Header className="hide-in-print">
        <AppHeader />
      </AppShell.Header>
      <AppShell.Main id="app-main" className="cc-main" tabIndex={-1} {...SCROLL_RESET}>
        <Outlet />
      </AppShell.Main>
    </AppShell>
  );
}
