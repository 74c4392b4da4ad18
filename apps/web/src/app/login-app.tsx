import { Alert, AppShell, Anchor, Group } from '@mantine/core';
import { useEffect, useState } from 'react';
import { I18nextProvider, useTranslation } from 'react-i18next';
import { paths } from '../config/paths';
import { LoginPage, alreadyLoggedInTarget } from '../features/auth/components/login-page';
import { i18n } from '../i18n';
import { ApiError, onRequestError } from '../lib/api-client';
import { describeRequestError } from '../lib/errors';
import { leaveLoginNotice } from '../lib/login-notice';
import { clearLoginFlag, getMe, hasLoginFlag, setLoginFlag } from '../lib/session-flag';
import { Brand, HEADER_HEIGHT, NotLoggedIn, VersionBadge, useCompactHeader } from './layout/header-parts';
import { LoginMenus } from './layout/login-menus';
import { PageLoader } from './pages/page-loader';
import { ThemeProvider } from './theme-provider';

/** Leaves for the app (a full navigation: the app's code loads there, not here). */
function leaveForApp(target: string): void {
  window.location.replace(target);
}

/** The SPEC §1 header as a visitor who is not logged in sees it. */
function LoginHeader() {
  const { t } = useTranslation();
  const compact = useCompactHeader();
  return (
    <Group h="100%" px={compact ? 'xs' : 'md'} justify="space-between" wrap="nowrap" gap={compact ? 6 : 'sm'}>
      <Group gap={compact ? 6 : 'sm'} wrap="nowrap" miw={0}>
        <Anchor href={paths.root} underline="never" c="inherit" aria-label={t('header.home')}>
          <Brand compact={compact} />
        </Anchor>
        <VersionBadge compact={compact} />
      </Group>
      <Group gap={compact ? 6 : 'xs'} wrap="nowrap">
        <LoginMenus compact={compact} />
        <NotLoggedIn compact={compact} />
      </Group>
    </Group>
  );
}

/**
 * The last failed request (SPEC §8 message), shown above the form: this page has no toasts. Its own height, not a
 * share of the page's (the main area's children grow and shrink to fill it).
 */
function RequestError() {
  const { t } = useTranslation();
  const [text, setText] = useState<string | null>(null);
  useEffect(
    () =>
      onRequestError(({ error, toast }) => {
        if (!toast) return;
        const { title, message } = describeRequestError(error, t);
        setText(message ? t('common.labelled', { label: title, text: message }) : title);
      }),
    [t],
  );
  if (!text) return null;
  return (
    <Alert
      color="red"
      role="alert"
      w={360}
      maw="calc(100% - 2rem)"
      mx="auto"
      mt="md"
      style={{ flex: 'none' }}
      withCloseButton
      onClose={() => setText(null)}
    >
      {text}
    </Alert>
  );
}

/**
 * A visitor who is already logged in goes on at once (to the redirect query or the chat), as the app's /login
 * route does; back from single sign-on (`?sso=done`) the session is marked first.
 */
function useAlreadyLoggedIn(search: URLSearchParams, leaveFor: (target: string) => void): boolean {
  const [checking, setChecking] = useState(() => {
    if (search.get('sso') === 'done') setLoginFlag();
    return hasLoginFlag();
  });
  useEffect(() => {
    if (!checking) return;
    getMe({ noAuthDialog: true, silent: true }).then(
      () => leaveFor(alreadyLoggedInTarget(search.get('redirect'))),
      (error: unknown) => {
        if (error instanceof ApiError) clearLoginFlag();
        setChecking(false);
      },
    );
  }, [checking, search, leaveFor]);
  return checking;
}

function LoginShell({ leaveFor }: { leaveFor: (target: string) => void }) {
  const [search] = useState(() => new URLSearchParams(window.location.search));
  const checking = useAlreadyLoggedIn(search, leaveFor);
  return (
    <AppShell header={{ height: HEADER_HEIGHT }} padding={0}>
      <AppShell.Header className="hide-in-print">
        <LoginHeader />
      </AppShell.Header>
      <AppShell.Main id="app-main" className="cc-main">
        <RequestError />
        {checking ? (
          <PageLoader />
        ) : (
          <LoginPage
            search={search}
            onLoggedIn={(_user, target) => {
              leaveLoginNotice();
              leaveFor(target);
            }}
          />
        )}
      </AppShell.Main>
    </AppShell>
  );
}

/** `leaveFor`: how the page goes on to the app (a full navigation; tests watch it instead). */
export function LoginApp({ leaveFor = leaveForApp }: { leaveFor?: (target: string) => void }) {
  return (
    <I18nextProvider i18n={i18n}>
      <ThemeProvider>
        <LoginShell leaveFor={leaveFor} />
      </ThemeProvider>
    </I18nextProvider>
  );
}
