/**
 * The conversation list by keyboard alone: one Tab stop (roving tabindex), arrows / Home / End between the rows,
 * Enter opens one, the row's actions from the row (ArrowRight, Shift+F10), the draft's ✕ too; the search results
 * the same way; and the skip link to the message box.
 */
import { randomUUID } from 'node:crypto';
import { expect, test } from '@playwright/test';
import type { Page } from '@playwright/test';
import { e2eDatabase, login, loginAs, registerUser, startConversation, useEnglish } from './helpers';

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

const focusInResults = (page: Page) =>
  page.evaluate(() => !!document.activeElement?.closest('[data-testid=search-results]'));

/** Presses Tab from where the focus is until it lands in the conversation list; returns the number of presses. */
async function tabIntoList(
  page: Page,
  key: 'Tab' | 'Shift+Tab' = 'Tab',
  inList: (page: Page) => Promise<boolean> = focusInList,
): Promise<number> {
  for (let presses = 1; presses <= 40; presses++) {
    await page.keyboard.press(key);
    if (await inList(page)) return presses;
  }
  throw new Error('the focus never reached the list');
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

test('the draft’s row is one of the list’s rows: its ✕ is reached with ArrowRight; Load more is no Tab stop', async ({
  page,
  baseURL,
}) => {
  // More than a page (50): the list ends with Load more.
  const titles = Array.from({ length: 55 }, (_, i) => `Draft list ${String(i + 1).padStart(2, '0')}`);
  await userWith(page, baseURL!, 'keydraft', titles);
  await expect(rowButton(page, 'Draft list 01')).toBeVisible();
  await expect(page.getByTestId('load-more-conversations')).toHaveAttribute('tabindex', '-1');
  await startConversation(page, 'OpenAI Web', /^GPT-3\.5/, 'My keyboard draft');
  const draftRow = page.getByTestId('draft-item').getByRole('button', { name: 'My keyboard draft' });
  const discard = page.getByRole('button', { name: 'Discard the new conversation' });

  // The draft is the open page: Tab enters the list on its row.
  await page.locator('body').focus();
  await tabIntoList(page);
  await expect(draftRow).toBeFocused();
  await expect(draftRow).toHaveAttribute('aria-current', 'page');
  await page.keyboard.press('ArrowRight');
  await expect(discard).toBeFocused();
  await page.keyboard.press('ArrowLeft');
  await expect(draftRow).toBeFocused();
  await page.keyboard.press('ArrowDown');
  await expect(rowButton(page, 'Draft list 01')).toBeFocused();

  // One Tab leaves the list: Load more, further on in it, is not on the way.
  await expect(page.getByTestId('load-more-conversations')).toBeAttached();
  await page.keyboard.press('Tab');
  expect(await focusInList(page)).toBe(false);
  await page.keyboard.press('Shift+Tab');
  await expect(rowButton(page, 'Draft list 01')).toBeFocused();
  // The next page comes as the end of the list comes into view; the arrows go on into it.
  await page.keyboard.press('End');
  await expect(rowButton(page, 'Draft list 50')).toBeFocused();
  await expect(rowButton(page, 'Draft list 51')).toBeAttached();
  await page.keyboard.press('ArrowDown');
  await expect(rowButton(page, 'Draft list 51')).toBeFocused();

  // The ✕ pressed from the keyboard: the draft is gone and the focus is on the list's first row, not lost.
  await page.keyboard.press('Home');
  await expect(draftRow).toBeFocused();
  await page.keyboard.press('ArrowRight');
  await page.keyboard.press('Enter');
  await expect(page.getByTestId('draft-item')).toHaveCount(0);
  await expect(rowButton(page, 'Draft list 01')).toBeFocused();
  await expect(rowButton(page, 'Draft list 01')).toHaveAttribute('tabindex', '0');
});

test('the search results are one Tab stop too: arrows, Home and End between them, Enter opens one', async ({
  page,
  baseURL,
}) => {
  await userWith(page, baseURL!, 'keysearch', ['Findme alpha', 'Findme beta', 'Findme gamma', 'Other one']);
  await expect(rowButton(page, 'Other one')).toBeVisible();
  await page.getByTestId('conversation-search').fill('Findme');
  const results = page.getByTestId('search-result');
  await expect(results).toHaveCount(3);
  const hint = page.locator(`[id="${await results.first().getAttribute('aria-describedby')}"]`);
  await expect(hint).toHaveText(
    'Up and down arrows: move between results; Home, End: first, last; Enter: open',
  );

  // From the search box, Tab reaches the first result (the clear and transfer buttons come before).
  await page.getByTestId('conversation-search').focus();
  await tabIntoList(page, 'Tab', focusInResults);
  await expect(results.nth(0)).toBeFocused();
  await expect(results.nth(0)).toHaveAttribute('aria-keyshortcuts', 'ArrowUp ArrowDown Home End');
  await page.keyboard.press('ArrowDown');
  await expect(results.nth(1)).toBeFocused();
  await page.keyboard.press('End');
  await expect(results.nth(2)).toBeFocused();
  await page.keyboard.press('ArrowDown'); // the last: stays
  await expect(results.nth(2)).toBeFocused();
  await page.keyboard.press('Home');
  await expect(results.nth(0)).toBeFocused();
  await page.keyboard.press('ArrowDown');

  // One Tab leaves the results; Shift+Tab comes back to the one last focused.
  await page.keyboard.press('Tab');
  expect(await focusInResults(page)).toBe(false);
  await page.keyboard.press('Shift+Tab');
  await expect(results.nth(1)).toBeFocused();
  for (const other of [0, 2]) await expect(results.nth(other)).toHaveAttribute('tabindex', '-1');

  // Enter opens the focused result's conversation.
  const title = (await results.nth(1).innerText()).split('\n')[0]!;
  await page.keyboard.press('Enter');
  await expect(page).toHaveURL(/\?id=/);
  await expect(page.getByTestId('conversation-title')).toHaveText(title);
});

test.describe('on a phone', () => {
  test.use({ viewport: { width: 390, height: 844 } });

  test('Enter on a row of the drawer opens it, the focus on the message box; Escape gives it back', async ({
    page,
    baseURL,
  }) => {
    await userWith(page, baseURL!, 'keyphone', ['Phone one', 'Phone two']);
    const drawer = page.getByRole('dialog');
    const input = page.getByTestId('chat-input');

    // Nothing open yet: the list's button is the empty page's, which goes away with it.
    await page.getByRole('button', { name: 'Conversations' }).click();
    await expect(drawer).toBeVisible();
    await tabIntoList(page);
    await expect(rowButton(page, 'Phone one')).toBeFocused();
    await page.keyboard.press('ArrowDown');
    await page.keyboard.press('Enter');
    await expect(drawer).toBeHidden();
    await expect(page.getByTestId('conversation-title')).toHaveText('Phone two');
    await expect(input).toBeEnabled();
    await expect(input).toBeFocused();

    // From the open conversation's header, to the other one.
    await page.getByTestId('open-list').click();
    await expect(drawer).toBeVisible();
    await tabIntoList(page);
    await expect(rowButton(page, 'Phone two')).toBeFocused();
    await page.keyboard.press('ArrowUp');
    await page.keyboard.press('Enter');
    await expect(drawer).toBeHidden();
    await expect(page.getByTestId('conversation-title')).toHaveText('Phone one');
    await expect(input).toBeFocused();

    // Closed without a choice: the focus goes back to the button that opened the drawer.
    await page.getByTestId('open-list').click();
    await expect(drawer).toBeVisible();
    await page.keyboard.press('Escape');
    await expect(drawer).toBeHidden();
    await expect(page.getByTestId('open-list')).toBeFocused();
  });
});
