import { ActionIcon, Badge, Group, Text, useComputedColorScheme } from '@mantine/core';
import { useMediaQuery } from '@mantine/hooks';
import type { ComponentPropsWithRef } from 'react';
import { useTranslation } from 'react-i18next';
import { ChatIcon, LanguageIcon, MoonIcon, SunIcon } from '../../components/icons';

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

/** The theme button: a sun or a moon, as the page shows now. */
export function ThemeTrigger(props: TriggerProps) {
  const { t } = useTranslation();
  const computed = useComputedColorScheme('light', { getInitialValueInEffect: false });
  return (
    <HeaderIconButton label={t('header.theme')} testId="theme-toggle" {...props}>
      {computed === 'dark' ? <MoonIcon /> : <SunIcon />}
    </HeaderIconButton>
  );
}

export function LanguageTrigger(props: TriggerProps) {
  const { t } = useTranslation();
  return (
    <HeaderIconButton label={t('header.language')} testId="language-menu" {...props}>
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
