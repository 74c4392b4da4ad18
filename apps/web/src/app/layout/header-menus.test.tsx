import { QueryClient } from '@tanstack/react-query';
import { act, cleanup, fireEvent, render, screen, waitFor, within } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { changeLanguage, i18n } from '../../i18n';
import { installDomStubs } from '../../test/dom-stubs';
import { AppProviders } from '../providers';
import { LanguageMenu, ThemeMenu } from './header-menus';

beforeEach(async () => {
  installDomStubs();
  localStorage.clear();
  await changeLanguage('en-US');
});
afterEach(() => {
  cleanup();
  localStorage.clear();
});

function renderMenus() {
  render(
    <AppProviders client={new QueryClient()}>
      <ThemeMenu compact={false} />
      <LanguageMenu compact={false} />
    </AppProviders>,
  );
}

/** The open menu's items: name, whether checked, and whether the check mark shows. */
async function openItems(trigger: HTMLElement) {
  fireEvent.click(trigger);
  // Still fading in under jsdom, so hidden elements are included.
  const menu = await screen.findByRole('menu', { hidden: true });
  return within(menu)
    .getAllByRole('menuitemradio', { hidden: true })
    .map((item) => ({
      name: item.textContent,
      checked: item.getAttribute('aria-checked'),
      mark: item.querySelector('svg path[d="M20 6L9 17l-5-5"]') !== null,
    }));
}

describe('the theme and language menus', () => {
  it('name their buttons with the current choice, and mark it in the menu as a checked radio item', async () => {
    renderMenus();
    const theme = screen.getByTestId('theme-toggle');
    const language = screen.getByTestId('language-menu');
    expect(theme.getAttribute('aria-label')).toBe('Theme: Follow device');
    expect(language.getAttribute('aria-label')).toBe('Language: English');

    expect(await openItems(theme)).toEqual([
      { name: 'Light', checked: 'false', mark: false },
      { name: 'Dark', checked: 'false', mark: false },
      { name: 'Follow device', checked: 'true', mark: true },
    ]);
    fireEvent.click(screen.getByRole('menuitemradio', { name: 'Dark', hidden: true }));
    await waitFor(() => expect(theme.getAttribute('aria-label')).toBe('Theme: Dark'));
    await waitFor(() => expect(screen.queryByRole('menu', { hidden: true })).toBeNull());

    expect(await openItems(language)).toEqual([
      { name: '简体中文', checked: 'false', mark: false },
      { name: 'English', checked: 'true', mark: true },
    ]);
    fireEvent.click(screen.getByRole('menuitemradio', { name: '简体中文', hidden: true }));
    await waitFor(() => expect(i18n.language).toBe('zh-CN'));
    expect(language.getAttribute('aria-label')).toBe('语言：简体中文');
    expect(theme.getAttribute('aria-label')).toBe('主题：深色');
    await act(() => changeLanguage('en-US'));
  });
});
