import { writeFile } from 'node:fs/promises';
import AxeBuilder from '@axe-core/playwright';
import { expect, test } from '@playwright/test';
import type { Page } from '@playwright/test';
import { ADMIN, lastRow, login, send, startConversation, useEnglish } from './helpers';

/**
 * Accessibility: axe-core finds no serious or critical WCAG 2.1 A/AA violation on the main pages, in both themes and
 * both languages. One browser context per theme × language walks every page, so the whole file stays quick.
 */

const THEMES = ['light', 'dark'] as const;
const LANGUAGES = ['zh-CN', 'en-US'] as const;
const TAGS = ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'];
const BLOCKING = new Set(['serious', 'critical']);

/** A conversation with one question and its answer, made once for the file (through the chat, as a user would). */
let conversationId = '';

test.beforeAll(async ({ browser }) => {
  const page = await browser.newPage();
  await useEnglish(page);
  await login(page, '/login?redirect=/conversation');
  await startConversation(page, 'OpenAI API', /^GPT-3\.5/, 'Accessibility check');
  await send(page, 'Hello, please answer with markdown');
  await expect(lastRow(page)).toContainText('You asked', { timeout: 20_000 });
  await expect(page.getByTestId('send-button')).toBeVisible({ timeout: 20_000 });
  await expect(page).toHaveURL(/\?id=/);
  conversationId = new URL(page.url()).searchParams.get('id') ?? '';
  expect(conversationId).not.toBe('');
  await page.close();
});

/** Waits until nothing on the page is still loading: no loader, no skeleton, fonts in, transitions over. */
async function settle(page: Page): Promise<void> {
  await expect(page.locator('.mantine-Loader-root:visible, .mantine-Skeleton-root:visible')).toHaveCount(0, {
    timeout: 15_000,
  });
  await page.evaluate(async () => {
    await document.fonts.ready;
    const finite = document
      .getAnimations()
      .filter((animation) => animation.effect?.getComputedTiming().iterations !== Infinity);
    await Promise.all(finite.map((animation) => animation.finished.catch(() => undefined)));
  });
}

/** The serious and critical violations on the page as it is now, one readable line per rule. */
async function scan(page: Page, where: string): Promise<{ lines: string[]; nodes: number }> {
  await settle(page);
  const results = await new AxeBuilder({ page })
    .withTags(TAGS)
    .options({ resultTypes: ['violations'] })
    .analyze();
  const blocking = results.violations.filter((v) => BLOCKING.has(v.impact ?? ''));
  if (blocking.length > 0) {
    // The full findings, kept beside the test's other output for a closer look.
    const file = test.info().outputPath(`axe-${where.replace(/[^a-z0-9]+/gi, '-')}.json`);
    await writeFile(file, JSON.stringify(blocking, null, 2));
    await test.info().attach(`axe ${where}`, { path: file, contentType: 'application/json' });
  }
  const lines = blocking.map((v) => {
    const targets = v.nodes
      .slice(0, 6)
      .map((n) => {
        const summary = n.failureSummary?.split('\n').slice(1, 2).join(' ').trim() ?? '';
        return `      ${n.target.join(' ')}${summary ? ` — ${summary}` : ''}`;
      })
      .join('\n');
    const more = v.nodes.length > 6 ? `\n      … and ${v.nodes.length - 6} more` : '';
    return `  ${where}: [${v.impact}] ${v.id} (${v.nodes.length}) ${v.help}\n${targets}${more}`;
  });
  return { lines, nodes: blocking.reduce((sum, v) => sum + v.nodes.length, 0) };
}

for (const theme of THEMES) {
  for (const language of LANGUAGES) {
    test.describe(`${theme} theme, ${language}`, () => {
      test.use({ colorScheme: theme, locale: language });

      test(`no serious or critical axe violation (${theme}, ${language})`, async ({ page }) => {
        test.setTimeout(120_000);
        // Menus and the new conversation form are scanned once per theme (their colours depend on the theme,
        // their names are the same i18n keys as the pages'), in zh-CN for light and en-US for dark.
        const withOverlays = (theme === 'light') === (language === 'zh-CN');
        await page.addInitScript(
          (stored) => {
            localStorage.setItem('theme', stored.theme);
            localStorage.setItem('language', stored.language);
          },
          { theme, language },
        );
        const found: string[] = [];
        const counts: string[] = [];
        const check = async (where: string) => {
          const html = page.locator('html');
          await expect(html).toHaveAttribute('data-mantine-color-scheme', theme);
          await expect(html).toHaveAttribute('lang', language);
          const { lines, nodes } = await scan(page, where);
          found.push(...lines);
          counts.push(`${where} ${nodes}`);
        };

        // Logged out: the login page.
        await page.goto('/login');
        await expect(page.locator('input[name=username]')).toBeVisible();
        await check('/login');
        await page.locator('input[name=username]').fill(ADMIN.username);
        await page.locator('input[name=password]').fill(ADMIN.password);
        await page.locator('input[name=password]').press('Enter');
        await expect(page.getByTestId('user-menu')).toBeVisible();

        await page.goto('/home');
        await expect(page.locator('a[href="/conversation"]').first()).toBeVisible();
        await check('/home');
        if (withOverlays) {
          await page.getByTestId('user-menu').click();
          await expect(page.getByRole('menu')).toBeVisible();
          await check('/home (user menu)');
          await page.keyboard.press('Escape');
          await expect(page.getByRole('menu')).toBeHidden();
        }

        await page.goto('/conversation');
        await expect(page.locator(`[data-conversation-id="${conversationId}"]`)).toBeVisible();
        await check('/conversation');
        if (withOverlays) {
          await page.getByTestId('conversation-menu').first().click();
          await expect(page.getByRole('menu')).toBeVisible();
          await check('/conversation (item menu)');
          await page.keyboard.press('Escape');
          await expect(page.getByRole('menu')).toBeHidden();
          // The conversation open in the chat, then the new conversation form over it.
          await page.locator(`[data-conversation-id="${conversationId}"]`).click();
          await expect(lastRow(page)).toBeVisible();
          await check('/conversation?id');
          await page.getByTestId('new-conversation').click();
          await expect(page.getByTestId('new-conversation-form')).toBeVisible();
          await check('/conversation?id (new conversation form)');
          await page.keyboard.press('Escape');
          await expect(page.getByTestId('new-conversation-form')).toBeHidden();
        }

        await page.goto(`/conv/${conversationId}`);
        await expect(lastRow(page)).toBeVisible();
        await check('/conv/{id}');

        await page.goto('/admin/system');
        await expect(page.getByTestId('system-stats').locator('.mantine-Card-root').first()).toBeVisible();
        await check('/admin/system');

        await page.goto('/admin/user');
        await expect(page.locator('tr[data-row-id]').first()).toBeVisible();
        await check('/admin/user');

        await page.goto('/admin/config');
        await expect(page.locator('.cc-admin-content form, .cc-admin-content input').first()).toBeVisible();
        await check('/admin/config');

        expect(
          found.length,
          `serious or critical accessibility violations (nodes per page: ${counts.join(', ')}):\n${found.join('\n')}`,
        ).toBe(0);
      });
    });
  }
}

test('keyboard focus stays useful: after the new conversation form, after stop and after a regenerate, after a dialog from the user menu', async ({
  page,
}) => {
  await useEnglish(page);
  await login(page, '/login?redirect=/conversation');
  const input = page.getByTestId('chat-input');

  // The form is confirmed from the keyboard: the message box has the focus, so typing goes there.
  await startConversation(page, 'OpenAI API', /^GPT-3\.5/, `Focus ${Date.now() % 100000}`);
  await expect(input).toBeFocused();

  // Stop is clicked while the answer stalls: the button gives way, the focus goes to the message box.
  await send(page, '#fault:stall=4 a story');
  await page.getByTestId('stop-button').click();
  await expect(page.getByTestId('send-button')).toBeVisible();
  await expect(input).toBeFocused();

  // Regenerate: its button is replaced by the new answer; the focus goes to the message box.
  await page.getByRole('button', { name: 'Regenerate' }).last().click();
  await expect(input).toBeFocused();
  await page.getByTestId('stop-button').click();
  await expect(page.getByTestId('send-button')).toBeVisible();

  // A dialog opened from the user menu gives the focus back to the menu's button when Escape closes it.
  for (const item of ['Profile', 'Reset password', 'Preferences']) {
    await page.getByTestId('user-menu').click();
    await page.getByRole('menuitem', { name: item }).click();
    await expect(page.getByRole('dialog')).toBeVisible();
    await page.keyboard.press('Escape');
    await expect(page.getByRole('dialog')).toBeHidden();
    await expect(page.getByTestId('user-menu'), item).toBeFocused();
  }
});
