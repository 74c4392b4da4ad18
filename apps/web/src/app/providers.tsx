import { MantineProvider, localStorageColorSchemeManager } from '@mantine/core';
import { ModalsProvider } from '@mantine/modals';
import { Notifications } from '@mantine/notifications';
import { QueryClientProvider } from '@tanstack/react-query';
import type { QueryClient } from '@tanstack/react-query';
import type { ReactNode } from 'react';
import { I18nextProvider } from 'react-i18next';
import { i18n } from '../i18n';
import { STORAGE_KEYS } from '../lib/storage';
import { theme } from './theme';
import { TOAST_CLASS, ToastZone } from './toast-zone';

/** Theme stored under `theme`; with nothing stored it follows the device (SPEC §1). */
const colorSchemeManager = localStorageColorSchemeManager({ key: STORAGE_KEYS.theme });

export function AppProviders({ client, children }: { client: QueryClient; children: ReactNode }) {
  return (
    <I18nextProvider i18n={i18n}>
      <QueryClientProvider client={client}>
        <MantineProvider theme={theme} defaultColorScheme="auto" colorSchemeManager={colorSchemeManager}>
          {/* At the bottom, out of the way of modal titles and inputs; modals keep clear of the stack (ToastZone). */}
          <Notifications position="bottom-center" limit={4} className={TOAST_CLASS} withinPortal={false} />
          <ToastZone />
          <ModalsProvider>{children}</ModalsProvider>
        </MantineProvider>
      </QueryClientProvider>
    </I18nextProvider>
  );
}
