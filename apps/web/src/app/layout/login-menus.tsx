import { useState } from 'react';
import { LanguageTrigger, ThemeTrigger } from './header-parts';

const loadMenus = () => import('./header-menus');
type Menus = Awaited<ReturnType<typeof loadMenus>>;
type Which = 'theme' | 'language';

let loading: Promise<Menus> | null = null;
function menus(): Promise<Menus> {
  loading ??= loadMenus().catch((error: unknown) => {
    loading = null;
    throw error;
  });
  return loading;
}

/**
 * The theme and language menus of the login page. Their code (the menu and its positioning) is a third of a small
 * page, so the buttons come first and the menus load when a button is pointed at, focused or used; the one used
 * opens as soon as it is there.
 */
export function LoginMenus({ compact }: { compact: boolean }) {
  const [loaded, setLoaded] = useState<Menus | null>(null);
  const [opened, setOpened] = useState<Which | null>(null);
  const load = () => {
    void menus().then(setLoaded, () => undefined);
  };
  if (loaded) {
    return (
      <>
        <loaded.ThemeMenu compact={compact} defaultOpened={opened === 'theme'} />
        <loaded.LanguageMenu compact={compact} defaultOpened={opened === 'language'} />
      </>
    );
  }
  const stand = (which: Which) => ({
    'aria-haspopup': 'menu' as const,
    'aria-expanded': false,
    onPointerEnter: load,
    onFocus: load,
    onClick: () => {
      setOpened(which);
      load();
    },
  });
  return (
    <>
      <ThemeTrigger compact={compact} {...stand('theme')} />
      <LanguageTrigger compact={compact} {...stand('language')} />
    </>
  );
}
