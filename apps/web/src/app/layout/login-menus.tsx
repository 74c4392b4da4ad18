import { useState } from 'react';
import type { PointerEvent } from 'react';
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
 * opens as soon as it is there. A press counts as use: when the menus land while the button is held down, the
 * button is replaced and the release clicks the header around it, not the button.
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
  const stand = (which: Which) => {
    const choose = () => {
      setOpened(which);
      load();
    };
    return {
      'aria-haspopup': 'menu' as const,
      'aria-expanded': false,
      onPointerEnter: load,
      onFocus: load,
      onPointerDown: (event: PointerEvent<HTMLButtonElement>) => {
        if (event.button === 0) choose();
      },
      onClick: choose,
    };
  };
  return (
    <>
      <ThemeTrigger compact={compact} {...stand('theme')} />
      <LanguageTrigger compact={compact} {...stand('language')} />
    </>
  );
}
