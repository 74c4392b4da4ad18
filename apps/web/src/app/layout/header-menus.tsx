import { Menu, useMantineColorScheme } from '@mantine/core';
import type { MantineColorScheme } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { CheckIcon, MonitorIcon, MoonIcon, SunIcon } from '../../components/icons';
import { LANGUAGES, LANGUAGE_NAMES, changeLanguage } from '../../i18n';
import type { Language } from '../../i18n';
import { LanguageTrigger, THEME_LABELS, ThemeTrigger } from './header-parts';

interface MenuProps {
  compact: boolean;
  /** Open from the start (the login page loads the menus when one of their buttons is first used). */
  defaultOpened?: boolean;
}

const THEME_CHOICES = [
  { value: 'light', Icon: SunIcon },
  { value: 'dark', Icon: MoonIcon },
  { value: 'auto', Icon: MonitorIcon },
] as const satisfies readonly { value: MantineColorScheme; Icon: unknown }[];

/** The mark beside the current choice of a menu (its items are radio items: `aria-checked` says it too). */
const CHECK = <CheckIcon size={14} />;

/** Light, dark, or following the device (the default, SPEC §1); the choice is remembered, "follow" included. */
export function ThemeMenu({ compact, defaultOpened = false }: MenuProps) {
  const { t } = useTranslation();
  const { colorScheme, setColorScheme } = useMantineColorScheme();
  return (
    <Menu position="bottom-end" withinPortal defaultOpened={defaultOpened} checkIcon={CHECK}>
      <Menu.Target>
        <ThemeTrigger compact={compact} />
      </Menu.Target>
      <Menu.Dropdown>
        {THEME_CHOICES.map(({ value, Icon }) => (
          <Menu.RadioItem
            key={value}
            value={value}
            checked={colorScheme === value}
            onChange={() => setColorScheme(value)}
            closeMenuOnClick
            rightSection={<Icon size={16} />}
          >
            {t(THEME_LABELS[value])}
          </Menu.RadioItem>
        ))}
      </Menu.Dropdown>
    </Menu>
  );
}

export function LanguageMenu({ compact, defaultOpened = false }: MenuProps) {
  const { i18n } = useTranslation();
  return (
    <Menu position="bottom-end" withinPortal defaultOpened={defaultOpened} checkIcon={CHECK}>
      <Menu.Target>
        <LanguageTrigger compact={compact} />
      </Menu.Target>
      <Menu.Dropdown>
        {LANGUAGES.map((language: Language) => (
          <Menu.RadioItem
            key={language}
            value={language}
            checked={i18n.language === language}
            onChange={() => void changeLanguage(language)}
            closeMenuOnClick
            lang={language}
          >
            {LANGUAGE_NAMES[language]}
          </Menu.RadioItem>
        ))}
      </Menu.Dropdown>
    </Menu>
  );
}
