/**
 * The conversation list by keyboard alone: one Tab stop (roving tabindex), arrows / Home / End between the rows,
 * Enter opens one, the row's actions from the row (ArrowRight, Shift+F10); and the skip link to the message box.
 */
import { randomUUID } from 'node:crypto';
import { expect, test } from '@playwright/test';
import type { Page } from '@playwright/test';
import { e2eDatabase, login, loginAs, registerUser, useEnglish } from './helpers';

const suffix = Date.now() % 100000;

/** A new user with `titles` as conversations (the first the newest), logged in on `page`, on the chat page. */
async function userWith(page: Page, baseURL: string, name: string, titles: string[]): Promise<void> {
  await useEnglish(page);
  await login(page);
  const user = { username: `${name}${suffix}`, password: 'keys-pass-123' };
  const userId = await registerUser(page, baseURL, user);
  const db = e2eDatabase();
  try {
    const insert = db.prepare(
      `insert into conversations (conversation_id, source, title, user_id, is_valid, is_public, current_model,
         create_time, update_time, pinned_at) values (?, 'openai_api', ?, ?, 1, 0, 'gpt_3_5', ?, ?, null)`,
    );
    const now = Date.now();
    db.transaction(() => {
      titles.forEach((title, i) => {
        const time = new Date(now - (i + 1) * 60_000).toISOString();
        insert.run(randomUUID(), title, userId, time, time);
      });
    })();
  } finally {
    db.close();
  }
  await page.context().clearCookies();
  await loginAs(page, user);
  await page.goto('/conversation');
}

const rowButton = (page: Page, title: string) =>
  page.locator('[data-conversation-id]').filter({ has: page.getByText(title, { exact: true }) });
const actions = (page: Page, title: string) =>
  page.getByRole('button', { name: `Actions for ${title}`, exact: true });
const focusInList = (page: Page) =>
  page.evaluate(() => !!document.activeElement?.closest('[data-testid=conversation-list]'));

/** Presses Tab from where the focus is until it lands in the conversation list; returns the number of presses. */
async function tabIntoList(page: Page, key: 'Tab' | 'Shift+Tab' = 'Tab'): Promise<number> {
  for (let presses = 1; presses <= 40; presses++) {
    await page.keyboard.press(key);
    if (await focusInList(page)) return presses;
  }
  throw new Error('the focus never reached the conversation list');
}

test('the list is one Tab stop, moved through with the arrows, Home and End; Enter opens a row', async ({
  page,
  baseURL,
}) => {
  await userWith(page, baseURL!, 'keys', ['Key one', 'Key two', 'Key three']);
  await expect(rowButton(page, 'Key three')).toBeVisible();

  // Tab enters the list on the first row (nothing is open yet).
  await page.locator('body').focus();
  await tabIntoList(page);
  await expect(rowButton(page, 'Key one')).toBeFocused();
  await expect(rowButton(page, 'Key one')).toHaveAttribute('aria-keyshortcuts', /ArrowDown/);

  await page.keyboard.press('ArrowDown');
  await expect(rowButton(page, 'Key two')).toBeFocused();
  await page.keyboard.press('End');
  await expect(rowButton(page, 'Key three')).toBeFocused();
  await page.keyboard.press('ArrowDown'); // the last row: stays
  await expect(rowButton(page, 'Key three')).toBeFocused();
  await page.keyboard.press('Home');
  await expect(rowButton(page, 'Key one')).toBeFocused();
  await page.keyboard.press('ArrowUp'); // the first row: stays
  await expect(rowButton(page, 'Key one')).toBeFocused();
  await page.keyboard.press('ArrowDown');

  // Enter opens the focused row, which becomes the current one.
  await page.keyboard.press('Enter');
  await expect(rowButton(page, 'Key two')).toHaveAttribute('aria-current', 'page');

  // One Tab leaves the list (no stop on the row's ⋮ button nor on the other rows) ...
  await rowButton(page, 'Key two').focus();
  await page.keyboard.press('Tab');
  expect(await focusInList(page)).toBe(false);
  // ... and Shift+Tab comes back to the row last focused.
  await page.keyboard.press('Shift+Tab');
  await expect(rowButton(page, 'Key two')).toBeFocused();
  for (const title of ['Key one', 'Key three']) {
    await expect(rowButton(page, title)).toHaveAttribute('tabindex', '-1');
    await expect(actions(page, title)).toHaveAttribute('tabindex', '-1');
  }
});

test('the row’s actions are reached from the row: ArrowRight / ArrowLeft, Shift+F10 opens the menu', async ({
  page,
  baseURL,
}) => {
  await userWith(page, baseURL!, 'keyactions', ['Act one', 'Act two']);
  await expect(rowButton(page, 'Act two')).toBeVisible();
  await page.locator('body').focus();
  await tabIntoList(page);
  await page.keyboard.press('ArrowDown');
  await expect(rowButton(page, 'Act two')).toBeFocused();

  await page.keyboard.press('ArrowRight');
  await expect(actions(page, 'Act two')).toBeFocused();
  await page.keyboard.press('ArrowLeft');
  await expect(rowButton(page, 'Act two')).toBeFocused();

  await page.keyboard.press('Shift+F10');
  await expect(page.getByRole('menuitem', { name: 'Rename' })).toBeVisible();
  await page.keyboard.press('Escape');
  await expect(page.getByRole('menu')).toHaveCount(0);
  await expect(actions(page, 'Act two')).toBeFocused();
  // Up and down work from the ⋮ button too, landing on the other row's title.
  await page.keyboard.press('ArrowUp');
  await expect(rowButton(page, 'Act one')).toBeFocused();
});

test('a row out of view is scrolled into view when the arrows reach it', async ({ page, baseURL }) => {
  const titles = Array.from({ length: 30 }, (_, i) => `Scroll ${String(i + 1).padStart(2, '0')}`);
  await userWith(page, baseURL!, 'keyscroll', titles);
  await expect(rowButton(page, 'Scroll 01')).toBeVisible();
  await page.locator('body').focus();
  await tabIntoList(page);
  await expect(rowButton(page, 'Scroll 01')).toBeFocused();
  for (let i = 1; i < 30; i++) await page.keyboard.press('ArrowDown');
  await expect(rowButton(page, 'Scroll 30')).toBeFocused();
  await expect(rowButton(page, 'Scroll 30')).toBeInViewport();
  await page.keyboard.press('Home');
  await expect(rowButton(page, 'Scroll 01')).toBeFocused();
  await expect(rowButton(page, 'Scroll 01')).toBeInViewport();
});

test('the first Tab stop skips to the message box', async ({ page, baseURL }) => {
  await userWith(page, baseURL!, 'keyskip', ['Skip one']);
  await expect(rowButton(page, 'Skip one')).toBeVisible();
  await rowButton(page, 'Skip one').click();
  await expect(page.getByTestId('chat-input')).toBeVisible();

  await page.reload();
  await expect(page.getByTestId('chat-input')).toBeVisible();
  await page.keyboard.press('Tab');
  const skip = page.getByRole('link', { name: 'Skip to message box' });
  await expect(skip).toBeFocused();
  await expect(skip).toBeInViewport();
  await page.keyboard.press('Enter');
  await expect(page.getByTestId('chat-input')).toBeFocused();

  // Without a message box (no conversation open), the link moves the focus to the main content.
  await page.goto('/conversation');
  await expect(rowButton(page, 'Skip one')).toBeVisible();
  await expect(page.getByTestId('chat-input')).toHaveCount(0);
  await page.keyboard.press('Tab');
  await expect(skip).toBeFocused();
  await page.keyboard.press('Enter');
  await expect(page.locator('main')).toBeFocused();
});
