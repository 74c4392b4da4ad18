import { expect, test } from '@playwright/test';
import { lastRow, login, send, useEnglish } from './helpers';

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
