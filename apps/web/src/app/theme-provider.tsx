import { MantineProvider, localStorageColorSchemeManager } from '@mantine/core';
import { useMemo } from 'react';
import type { ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { STORAGE_KEYS } from '../lib/storage';
import { createAppTheme, cssVariablesResolver } from './theme';

/** Theme stored under `theme`; with nothing stored it follows the device (SPEC §1). */
const colorSchemeManager = localStorageColorSchemeManager({ key: STORAGE_KEYS.theme });

/** Mantine with the app's theme, rebuilt when the language changes (it names Mantine's icon-only buttons). */
export function ThemeProvider({ children }: { children: ReactNode }) {
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
      {children}
    </MantineProvider>
  );
}
