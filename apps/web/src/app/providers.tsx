import { MantineProvider, localStorageColorSchemeManager } from '@mantine/core';
import { ModalsProvider } from '@mantine/modals';
import { Notifications } from '@mantine/notifications';
import { QueryClientProvider } from '@tanstack/react-query';
import type { QueryClient } from '@tanstack/react-query';
import { useMemo } from 'react';
import type { ReactNode } from 'react';
import { I18nextProvider, useTranslation } from 'react-i18next';
import { i18n } from '../i18n';
import { STORAGE_KEYS } from '../lib/storage';
import { createAppTheme, cssVariablesResolver } from './theme';
import { TOAST_CLASS, ToastZone } from './toast-zone';

/** Theme stored under `theme`; with nothing stored it follows the device (SPEC §1). */
const colorSchemeManager = localStorageColorSchemeManager({ key: STORAGE_KEYS.theme });

/** Mantine with the app's theme, rebuilt when the language changes (it names Mantine's icon-only buttons). */
function ThemedProviders({ children }: { children: ReactNode }) {
  const { t, i18n: current } = useTranslation();
  const language = current.language;
  const theme = useMemo(
    () =>
      createAppTheme({
        close: t('common.close', { lng: language }),
        clear: t('common.clear', { lng: language }),
        firstPage: t('common.firstPage', { lng: language }),
        previousPage: t('common.previousPage', { lng: language }),
        nextPage: t('common.nextPage', { lng: language }),
        lastPage: t('common.lastPage', { lng: language }),
      }),
    [t, language],
  );
  return (
    <MantineProvider
      theme={theme}
      cssVariablesResolver={cssVariablesResolver}
      defaultColorScheme="auto"
      colorSchemeManager={colorSchemeManager}
    >
      {/* At the bottom, out of the way of modal titles and inputs; modals keep clear of the stack (ToastZone). */}
      <Notifications position="bottom-center" limit={4} className={TOAST_CLASS} withinPortal={false} />
      <ToastZone />
      <ModalsProvider>{children}</ModalsProvider>
    </MantineProvider>
  );
}

export function AppProviders({ client, children }: { client: QueryClient; children: ReactNode }) {
  return (
    <I18nextProvider i18n={i18n}>
      <QueryClientProvider client={client}>
        <ThemedProviders>{children}</ThemedProviders>
      </QueryClientProvider>
    </I18nextProvider>
  );
}
