import { ModalsProvider } from '@mantine/modals';
import { Notifications } from '@mantine/notifications';
import { QueryClientProvider } from '@tanstack/react-query';
import type { QueryClient } from '@tanstack/react-query';
import type { ReactNode } from 'react';
import { I18nextProvider } from 'react-i18next';
import { i18n } from '../i18n';
import { ThemeProvider } from './theme-provider';
import { TOAST_CLASS, ToastZone } from './toast-zone';

/** The toasts and the modals every page of the app may open. */
function Overlays({ children }: { children: ReactNode }) {
  return (
    <>
      {/* At the bottom, out of the way of modal titles and inputs; modals keep clear of the stack (ToastZone). */}
      <Notifications position="bottom-center" limit={4} className={TOAST_CLASS} withinPortal={false} />
      <ToastZone />
      <ModalsProvider>{children}</ModalsProvider>
    </>
  );
}

export function AppProviders({ client, children }: { client: QueryClient; children: ReactNode }) {
  return (
    <I18nextProvider i18n={i18n}>
      <QueryClientProvider client={client}>
        <ThemeProvider>
          <Overlays>{children}</Overlays>
        </ThemeProvider>
      </QueryClientProvider>
    </I18nextProvider>
  );
}
