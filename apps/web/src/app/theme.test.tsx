import {
  CloseButton,
  DEFAULT_THEME,
  Menu,
  Pagination,
  darken,
  luminance,
  mergeMantineTheme,
} from '@mantine/core';
import { DateTimePicker } from '@mantine/dates';
import { QueryClient } from '@tanstack/react-query';
import { act, cleanup, render, screen, within } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { installDomStubs } from '../features/admin/shared/test-dom';
import { changeLanguage } from '../i18n';
import { AppProviders } from './providers';
import { DIMMED, createAppTheme, cssVariablesResolver } from './theme';

/** WCAG 2.1 contrast ratio of two opaque colours. */
function contrast(a: string, b: string): number {
  const [light, dark] = [luminance(a), luminance(b)].sort((x, y) => y - x) as [number, number];
  return (light + 0.05) / (dark + 0.05);
}

const AA_TEXT = 4.5;
const LABELS = {
  close: 'Close',
  clear: 'Clear',
  firstPage: 'First page',
  previousPage: 'Previous page',
  nextPage: 'Next page',
  lastPage: 'Last page',
};
const theme = mergeMantineTheme(DEFAULT_THEME, createAppTheme(LABELS));
const shades = (name: string) => theme.colors[name]!;
const WHITE = theme.white;
const { gray, dark } = theme.colors;
/** Where text sits in the light scheme: body, cards, hovered / striped rows and the assistant's rows. */
const LIGHT_BACKGROUNDS = [WHITE, gray[0], gray[1], gray[2]];
/** The same in the dark scheme: body (dark-7), cards and inputs (dark-6), hovered rows (dark-5), dark-8. */
const DARK_BACKGROUNDS = [dark[7], dark[6], dark[5], dark[8]];
/** `dark` is the dark scheme's own grey ramp, not a text colour. */
const TEXT_COLORS = Object.keys(theme.colors).filter((name) => name !== 'dark');

describe('theme colours reach WCAG AA contrast', () => {
  const primaryShade = theme.primaryShade as { light: number; dark: number };

  it.each(TEXT_COLORS)('%s: white on filled parts and their hover, in both schemes', (name) => {
    for (const shade of [primaryShade.light, primaryShade.dark, 9]) {
      expect(contrast(WHITE, shades(name)[shade]!), `white on ${name}.${shade}`).toBeGreaterThanOrEqual(
        AA_TEXT,
      );
    }
  });

  it.each(TEXT_COLORS)('%s: outline and coloured text on white, light variant on its tint', (name) => {
    const c = shades(name);
    expect(contrast(c[primaryShade.light]!, WHITE)).toBeGreaterThanOrEqual(AA_TEXT);
    expect(contrast(c[9], c[1]), `${name}.9 on ${name}.1`).toBeGreaterThanOrEqual(AA_TEXT);
  });

  it.each(TEXT_COLORS)('%s: dark scheme text and outline (shade 4), light variant (shade 0)', (name) => {
    const c = shades(name);
    expect(contrast(c[4], dark[7])).toBeGreaterThanOrEqual(AA_TEXT);
    expect(contrast(c[0], darken(c[9], 0.5))).toBeGreaterThanOrEqual(AA_TEXT);
  });

  it('dimmed text and placeholders read on every background of their scheme', () => {
    for (const background of LIGHT_BACKGROUNDS)
      expect(contrast(DIMMED.light, background), `on ${background}`).toBeGreaterThanOrEqual(AA_TEXT);
    for (const background of DARK_BACKGROUNDS)
      expect(contrast(DIMMED.dark, background), `on ${background}`).toBeGreaterThanOrEqual(AA_TEXT);
    const resolved = cssVariablesResolver(theme);
    expect(resolved.light['--mantine-color-dimmed']).toBe(DIMMED.light);
    expect(resolved.light['--mantine-color-placeholder']).toBe(DIMMED.light);
    expect(resolved.dark['--mantine-color-dimmed']).toBe(DIMMED.dark);
    expect(resolved.dark['--mantine-color-placeholder']).toBe(DIMMED.dark);
  });

  it('teal stays the primary colour, darker only where white text sits on it', () => {
    expect(theme.primaryColor).toBe('teal');
    expect(shades('teal').slice(0, 7)).toEqual(DEFAULT_THEME.colors.teal.slice(0, 7));
  });
});

describe("Mantine's icon-only buttons have names in the current language", () => {
  beforeEach(async () => {
    installDomStubs();
    await changeLanguage('en-US');
  });
  afterEach(async () => {
    cleanup();
    await changeLanguage('en-US');
  });

  function Buttons() {
    return (
      <>
        <Pagination total={3} value={1} onChange={() => undefined} withEdges />
        <CloseButton />
        <DateTimePicker label="From" value="2026-01-02 03:04:00" clearable onChange={() => undefined} />
      </>
    );
  }

  it('names the pagination arrows, close and clear buttons, and renames them when the language changes', async () => {
    render(
      <AppProviders client={new QueryClient()}>
        <Buttons />
      </AppProviders>,
    );
    for (const name of ['First page', 'Previous page', 'Next page', 'Last page', 'Close', 'Clear'])
      expect(screen.getByRole('button', { name }), name).toBeTruthy();

    await act(() => changeLanguage('zh-CN'));
    for (const name of ['第一页', '上一页', '下一页', '最后一页', '关闭', '清除'])
      expect(screen.getByRole('button', { name }), name).toBeTruthy();
  });
});

describe('menus', () => {
  beforeEach(() => installDomStubs());
  afterEach(cleanup);

  it('an open menu holds only its items (no hidden focus placeholder)', async () => {
    render(
      <AppProviders client={new QueryClient()}>
        <Menu defaultOpened>
          <Menu.Target>
            <button type="button">Open</button>
          </Menu.Target>
          <Menu.Dropdown>
            <Menu.Item>Rename</Menu.Item>
            <Menu.Item c="red">Delete</Menu.Item>
          </Menu.Dropdown>
        </Menu>
      </AppProviders>,
    );
    // Still fading in under jsdom, so hidden elements are included.
    const menu = await screen.findByRole('menu', { hidden: true });
    expect(menu.querySelector('[role=presentation]')).toBeNull();
    expect(
      within(menu)
        .getAllByRole('menuitem', { hidden: true })
        .map((item) => item.textContent),
    ).toEqual(['Rename', 'Delete']);
  });
});
