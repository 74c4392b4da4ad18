import { Menu, useMantineColorScheme } from '@mantine/core';
import type { MantineColorScheme } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { CheckIcon, MonitorIcon, MoonIcon, SunIcon } from '../../components/icons';
import { LANGUAGES, LANGUAGE_NAMES, changeLanguage } from '../../i18n';
import type { Language } from '../../i18n';
import { LanguageTrigger, ThemeTrigger } from './header-parts';

interface MenuProps {
  compact: boolean;
  /** Open from the start (the login page loads the menus when one of their buttons is first used). */
  defaultOpened?: boolean;
}

const THEME_CHOICES = [
  { value: 'light', label: 'header.themeLight', Icon: SunIcon },
  { value: 'dark', label: 'header.themeDark', Icon: MoonIcon },
  { value: 'auto', label: 'header.themeAuto', Icon: MonitorIcon },
] as const satisfies readonly { value: MantineColorScheme; label: string; Icon: unknown }[];

/** Light, dark, or following the device (the default, SPEC §1); the choice is remembered, "follow" included. */
export function ThemeMenu({ compact, defaultOpened = false }: MenuProps) {
  const { t } = useTranslation();
  const { colorScheme, setColorScheme } = useMantineColorScheme();
  return (
    <Menu position="bottom-end" withinPortal defaultOpened={defaultOpened}>
      <Menu.Target>
        <ThemeTrigger compact={compact} />
      </Menu.Target>
      <Menu.Dropdown>
        {THEME_CHOICES.map(({ value, label, Icon }) => (
          <Menu.Item
            key={value}
            aria-current={colorScheme === value ? 'true' : undefined}
            leftSection={<Icon size={16} />}
            rightSection={colorScheme === value ? <CheckIcon size={14} /> : null}
            onClick={() => setColorScheme(value)}
          >
            {t(label)}
          </Menu.Item>
        ))}
      </Menu.Dropdown>
    </Menu>
  );
}

export function LanguageMenu({ compact, defaultOpened = false }: MenuProps) {
  const { i18n } = useTranslation();
  return (
    <Menu position="bottom-end" withinPortal defaultOpened={defaultOpened}>
      <Menu.Target>
        <LanguageTrigger compact={compact} />
      </Menu.Target>
      <Menu.Dropdown>
        {LANGUAGES.map((language: Language) => (
          <Menu.Item
            key={language}
            onClick={() => void changeLanguage(language)}
            fw={i18n.language === language ? 700 : undefined}
            aria-current={i18n.language === language ? 'true' : undefined}
            lang={language}
          >
            {LANGUAGE_NAMES[language]}
          </Menu.Item>
        ))}
      </Menu.Dropdown>
    </Menu>
  );
}
