import { AppShell } from '@mantine/core';
import { useEffect } from 'react';
import { Outlet, useLocation } from 'react-router';
import { RequestErrorBridge } from '../request-error-bridge';
import { AppHeader } from './app-header';

export const HEADER_HEIGHT = 56;

/** SPEC §2: navigating scrolls to the top (the window and the page's own scroll container). */
function ScrollToTop() {
  const { pathname } = useLocation();
  useEffect(() => {
    window.scrollTo(0, 0);
    document.getElementById('app-main')?.scrollTo?.(0, 0);
  }, [pathname]);
  return null;
}

export function RootLayout() {
  return (
    <AppShell header={{ height: HEADER_HEIGHT }} padding={0}>
      <ScrollToTop />
      <RequestErrorBridge />
      <AppShell.Header className="hide-in-print">
        <AppHeader />
      </AppShell.Header>
      <AppShell.Main id="app-main" className="cc-main">
        <Outlet />
      </AppShell.Main>
    </AppShell>
  );
}
