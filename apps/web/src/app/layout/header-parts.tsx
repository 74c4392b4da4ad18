import { ActionIcon, Badge, Group, Text, useComputedColorScheme, useMantineColorScheme } from '@mantine/core';
import type { MantineColorScheme } from '@mantine/core';
import { useMediaQuery } from '@mantine/hooks';
import type { ComponentPropsWithRef } from 'react';
import { useTranslation } from 'react-i18next';
import { ChatIcon, LanguageIcon, MoonIcon, SunIcon } from '../../components/icons';
import { LANGUAGE_NAMES } from '../../i18n';
import type { Language } from '../../i18n';

/*
 * The parts of the SPEC §1 header that need neither the router nor the session: the full app's header and the
 * login page's own (a page of its own, so that its first load stays small) are made of them.
 */

/** Height of the header bar, px. */
export const HEADER_HEIGHT = 56;

export const APP_VERSION = 'v1.0.1';

type TriggerProps = ComponentPropsWithRef<'button'> & { compact: boolean };

/** A square header button with its name (the menus' targets, or their stand-ins until the menus load). */
function HeaderIconButton({
  compact,
  label,
  testId,
  ...props
}: TriggerProps & { label: string; testId: string }) {
  return (
    <ActionIcon
      variant="default"
      size={compact ? 'md' : 'lg'}
      aria-label={label}
      data-testid={testId}
      {...props}
    />
  );
}

/** The words of each theme choice (the menu's items, and the current one in the button's name). */
export const THEME_LABELS = {
  light: 'header.themeLight',
  dark: 'header.themeDark',
  auto: 'header.themeAuto',
} as const satisfies Record<MantineColorScheme, string>;

/** The theme button: a sun or a moon, as the page shows now; its name says the choice ("Theme: Dark"). */
export function ThemeTrigger(props: TriggerProps) {
  const { t } = useTranslation();
  const { colorScheme } = useMantineColorScheme();
  const computed = useComputedColorScheme('light', { getInitialValueInEffect: false });
  const label = t('common.labelled', { label: t('header.theme'), text: t(THEME_LABELS[colorScheme]) });
  return (
    <HeaderIconButton label={label} testId="theme-toggle" {...props}>
      {computed === 'dark' ? <MoonIcon /> : <SunIcon />}
    </HeaderIconButton>
  );
}

/** The language button; its name says the language in use ("Language: English"). */
export function LanguageTrigger(props: TriggerProps) {
  const { t, i18n } = useTranslation();
  const current = LANGUAGE_NAMES[i18n.language as Language] ?? i18n.language;
  const label = t('common.labelled', { label: t('header.language'), text: current });
  return (
    <HeaderIconButton label={label} testId="language-menu" {...props}>
      <LanguageIcon />
    </HeaderIconButton>
  );
}

/** Below Mantine's `xs` breakpoint (36em): a phone. */
export const PHONE_QUERY = '(max-width: 35.99em)';

/** Whether the window is phone-wide (read at once: no second render). */
export function useCompactHeader(): boolean {
  return useMediaQuery(PHONE_QUERY, false, { getInitialValueInEffect: false });
}

/** The logo and product name (the caller wraps them in its link to the root). */
export function Brand({ compact }: { compact: boolean }) {
  return (
    <Group gap={compact ? 4 : 8} wrap="nowrap">
      <span className="cc-logo" aria-hidden="true">
        <ChatIcon size={18} />
      </span>
      <Text fw={700} size={compact ? 'sm' : 'lg'} style={{ whiteSpace: 'nowrap' }} data-testid="app-name">
        Chat Commons
      </Text>
    </Group>
  );
}

export function VersionBadge({ compact }: { compact: boolean }) {
  return (
    <Badge
      variant="light"
      color="teal"
      tt="none"
      size={compact ? 'xs' : 'md'}
      // Kept whole: the greeting beside it is the one shortened on a narrow screen.
      style={{ flexShrink: 0 }}
      data-testid="app-version"
    >
      {APP_VERSION}
    </Badge>
  );
}

/** Said where the user menu would be when nobody is logged in. */
export function NotLoggedIn({ compact }: { compact: boolean }) {
  const { t } = useTranslation();
  return (
    <Text
      size={compact ? 'xs' : 'sm'}
      c="dimmed"
      style={{ whiteSpace: 'nowrap' }}
      data-testid="not-logged-in"
    >
      {t('header.notLoggedIn')}
    </Text>
  );
}
