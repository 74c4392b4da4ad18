import { expect, test } from '@playwright/test';
import { lastRow, login, loginAs, registerUser, send, useEnglish } from './helpers';

test.use({ viewport: { width: 390, height: 844 } });

test('a 390 px wide chat: the list lives in a drawer, a question streams, nothing overflows', async ({
  page,
}) => {
  await useEnglish(page);
  await login(page, '/login?redirect=/conversation');
  await expect(page).toHaveURL(/\/conversation/);

  // The sidebar is not on the page; the new conversation form opens from the empty state.
  await expect(page.locator('aside.cc-sidebar')).toHaveCount(0);
  await page.getByTestId('empty-new-conversation').click();
  const form = page.getByTestId('new-conversation-form');
  await expect(form).toBeVisible();
  const formBox = await form.boundingBox();
  expect(formBox?.width ?? 0).toBeLessThanOrEqual(390);
  await form.getByLabel('Title').fill('Narrow screen');
  await form.getByTestId('source-select').click();
  await page.getByRole('option', { name: 'OpenAI API' }).click();
  await form.getByTestId('model-select').click();
  await page
    .getByRole('option', { name: /^GPT-3\.5/ })
    .first()
    .click();
  await form.getByRole('button', { name: 'Confirm' }).click();
  await expect(form).toBeHidden();

  await send(page, 'Please answer with markdown on a phone');
  await expect(lastRow(page)).toContainText('You asked', { timeout: 20_000 });
  await expect(page.getByTestId('send-button')).toBeVisible({ timeout: 20_000 });
  await expect(page).toHaveURL(/\?id=/);

  // The header keeps the model's name and the asks left each on one line ("GPT-" / "3.5" before).
  const lines = (el: Element) => {
    const range = document.createRange();
    range.selectNodeContents(el);
    return new Set([...range.getClientRects()].map((r) => Math.round(r.top))).size;
  };
  const header = page.locator('.cc-conv-header');
  expect(await header.locator('[data-model-color]').first().evaluate(lines)).toBe(1);
  expect(await page.getByTestId('remaining-asks').evaluate(lines)).toBe(1);

  // The page does not scroll sideways; a long code line scrolls inside its block.
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
  expect(overflow).toBeLessThanOrEqual(0);

  // The conversation list opens in a drawer and lists the new conversation; choosing it closes the drawer.
  await page.getByTestId('open-list').click();
  const drawer = page.getByRole('dialog');
  await expect(drawer).toBeVisible();
  const item = drawer.getByText('Narrow screen');
  await expect(item).toBeVisible();
  await item.click();
  await expect(drawer).toBeHidden();
  await expect(page.getByTestId('conversation-title')).toHaveText('Narrow screen');
});

/** Text cut short by an ellipsis: the element's content is wider than its box. */
const clipped = (el: Element) => el.scrollWidth > el.clientWidth + 1;

test('at 390 px the version, the drawer’s title and the profile’s asks left are shown whole', async ({
  page,
  baseURL,
}) => {
  // A user with a long name: the greeting beside the version is the one to give way.
  await useEnglish(page);
  await login(page);
  const user = { username: `averylongnickname${Date.now() % 100000}`, password: 'narrow-pass-123' };
  await registerUser(page, baseURL!, user);
  await page.context().clearCookies();
  await loginAs(page, user);
  await page.goto('/conversation');
  await expect(page.getByTestId('app-version')).toHaveText('v1.0.1');
  expect(await page.locator('[data-testid="app-version"] .mantine-Badge-label').evaluate(clipped)).toBe(
    false,
  );

  // The drawer's title lines up with the list under it.
  await page.getByRole('button', { name: 'Conversations' }).click();
  const drawer = page.getByRole('dialog');
  await expect(drawer.getByPlaceholder('Search conversations')).toBeVisible();
  // (Read in one frame: the drawer may still be sliding in.)
  const indent = await drawer.evaluate((d) => {
    const left = (el: Element | null) => el!.getBoundingClientRect().left;
    return Math.round(left(d.querySelector('h2')) - left(d.querySelector('input')));
  });
  expect(Math.abs(indent)).toBeLessThanOrEqual(4);
  await page.keyboard.press('Escape');

  // Every model's asks left, its count included (long model names too), and nothing runs past the dialog's edge
  // (the user's email is long).
  await page.getByTestId('user-menu').click();
  await page.getByRole('menuitem', { name: 'Profile' }).click();
  const dialog = page.getByRole('dialog', { name: 'User profile' });
  const models = dialog.getByTestId('asks-left-openai_web').getByRole('listitem');
  await expect(models.filter({ hasText: /^GPT-4 \(Code Interpreter\): (\d+|Unlimited)$/ })).toHaveCount(1);
  const body = (await dialog.locator('.mantine-Modal-body').boundingBox())!;
  const beyond = await dialog
    .locator('td, li')
    .evaluateAll(
      (cells, edge) =>
        cells.filter((c) => c.getBoundingClientRect().right > edge + 1).map((c) => c.textContent),
      body.x + body.width,
    );
  expect(beyond).toEqual([]);
});

test('at 390 px a superuser goes between the chat and the admin console through the account menu', async ({
  page,
}) => {
  await useEnglish(page);
  await login(page, '/login?redirect=/conversation');
  await expect(page.getByRole('link', { name: 'Admin', exact: true })).toBeHidden();
  await page.getByTestId('user-menu').click();
  await page.getByRole('menuitem', { name: 'Admin', exact: true }).click();
  await expect(page).toHaveURL(/\/admin\//);
  await page.getByTestId('user-menu').click();
  await page.getByRole('menuitem', { name: 'Chat', exact: true }).click();
  await expect(page).toHaveURL(/\/conversation/);
});
