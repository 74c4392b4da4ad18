import { createTheme } from '@mantine/core';
import type {
  CSSVariablesResolver,
  InputClearButtonProps,
  MantineColorsTuple,
  MenuProps,
  PaginationProps,
} from '@mantine/core';

/**
 * Palettes whose darker shades are deepened (0–6 stay Mantine's) so text reads at WCAG AA (4.5:1): white on shade 8
 * (filled buttons, badges in both themes), shade 8 on white (outline, `c="red"`), shade 9 on shade 1 (light
 * variant). The other Mantine colours already pass. theme.test.ts checks every colour.
 */
export const ACCESSIBLE_COLORS = {
  teal: [
    '#e6fcf5',
    '#c3fae8',
    '#96f2d7',
    '#63e6be',
    '#38d9a9',
    '#20c997',
    '#12b886',
    '#0b996e',
    '#087f5a',
    '#077151',
  ],
  green: [
    '#ebfbee',
    '#d3f9d8',
    '#b2f2bb',
    '#8ce99a',
    '#69db7c',
    '#51cf66',
    '#40c057',
    '#309a43',
    '#267f37',
    '#237033',
  ],
  orange: [
    '#fff4e6',
    '#ffe8cc',
    '#ffd8a8',
    '#ffc078',
    '#ffa94d',
    '#ff922b',
    '#fd7e14',
    '#e15e06',
    '#bf490a',
    '#b03a0c',
  ],
  yellow: [
    '#fff9db',
    '#fff3bf',
    '#ffec99',
    '#ffe066',
    '#ffd43b',
    '#fcc419',
    '#fab005',
    '#ba7900',
    '#a35f00',
    '#994f00',
  ],
  red: [
    '#fff5f5',
    '#ffe3e3',
    '#ffc9c9',
    '#ffa8a8',
    '#ff8787',
    '#ff6b6b',
    '#fa5252',
    '#f03e3e',
    '#d12e2e',
    '#bb2727',
  ],
  cyan: [
    '#e3fafc',
    '#c5f6fa',
    '#99e9f2',
    '#66d9e8',
    '#3bc9db',
    '#22b8cf',
    '#15aabf',
    '#1094a9',
    '#0b7a8d',
    '#0a6c7e',
  ],
  lime: [
    '#f4fce3',
    '#e9fac8',
    '#d8f5a2',
    '#c0eb75',
    '#a9e34b',
    '#94d82d',
    '#82c91e',
    '#5e9512',
    '#4b7c0b',
    '#456e0a',
  ],
} satisfies Record<string, MantineColorsTuple>;

/**
 * Secondary text (`c="dimmed"`, input descriptions) and placeholders: at least 4.5:1 on the body, cards, inputs and
 * the hovered / striped / assistant-row backgrounds (gray-0 to gray-2 in light, dark-5 to dark-8 in dark).
 */
export const DIMMED = { light: '#636a71', dark: '#a6a6a6' } as const;

export const cssVariablesResolver: CSSVariablesResolver = (theme) => ({
  variables: {},
  light: {
    '--mantine-color-dimmed': DIMMED.light,
    '--mantine-color-placeholder': DIMMED.light,
    '--mantine-color-error': theme.colors.red[8],
  },
  dark: {
    '--mantine-color-dimmed': DIMMED.dark,
    '--mantine-color-placeholder': DIMMED.dark,
  },
});

/** Names of Mantine's icon-only buttons, in the current language. */
export interface ThemeLabels {
  close: string;
  clear: string;
  firstPage: string;
  previousPage: string;
  nextPage: string;
  lastPage: string;
}

const PAGINATION_CONTROLS = {
  first: 'firstPage',
  previous: 'previousPage',
  next: 'nextPage',
  last: 'lastPage',
} as const;

/**
 * The app's theme: teal primary, shade 8 for filled parts in both schemes (white text on it reads at 4.5:1), and
 * names for Mantine's icon-only buttons (close, clear, pagination arrows) so no button is left unnamed. A coloured
 * menu item takes `c` (the colour's text shade), not `color` (shade 6, too light for text on white).
 */
export function createAppTheme(labels: ThemeLabels) {
  return createTheme({
    primaryColor: 'teal',
    primaryShade: { light: 8, dark: 8 },
    colors: ACCESSIBLE_COLORS,
    defaultRadius: 'md',
    fontFamily:
      'system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", "PingFang SC", "Microsoft YaHei", sans-serif',
    fontFamilyMonospace: 'Menlo, "SF Mono", Monaco, Consolas, "Liberation Mono", monospace',
    components: {
      // CloseButton's props type leaves out the button attributes it passes on, so no `extend` helper here.
      CloseButton: { defaultProps: { 'aria-label': labels.close } },
      // Plain objects rather than `Component.extend` (the same, typed): the theme is on every page, and `extend`
      // would bring the whole component (a menu: its positioning library) into the first page's code.
      InputClearButton: {
        defaultProps: { 'aria-label': labels.clear } satisfies Partial<InputClearButtonProps>,
      },
      // Without the hidden focus placeholder (a role="presentation" child a menu may not hold), an opened menu
      // focuses itself and the arrow keys move to its items.
      Menu: { defaultProps: { withInitialFocusPlaceholder: false } satisfies Partial<MenuProps> },
      Pagination: {
        defaultProps: {
          getControlProps: (control) => ({ 'aria-label': labels[PAGINATION_CONTROLS[control]] }),
        } satisfies Partial<PaginationProps>,
      },
    },
  });
}
