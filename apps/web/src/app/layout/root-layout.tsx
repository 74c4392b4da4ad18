import { AppShell } from '@mantine/core';
import { useEffect } from 'react';
import { Outlet, useLocation } from 'react-router';
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

export function RootLayout() {
  return (
    <AppShell header={{ height: HEADER_HEIGHT }} padding={0}>
      <ScrollToTop />
      <RequestErrorBridge />
      <LoginNotice />
      <AppShell.Header className="hide-in-print">
        <AppHeader />
      </AppShell.Header>
      <AppShell.Main id="app-main" className="cc-main" {...SCROLL_RESET}>
        <Outlet />
      </AppShell.Main>
    </AppShell>
  );
}
