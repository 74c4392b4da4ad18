import { readFile } from 'node:fs/promises';
import { expect, test } from '@playwright/test';
import type { Page } from '@playwright/test';
import { lastRow, login, send, startConversation, useEnglish } from './helpers';

test.beforeEach(async ({ page }) => {
  await useEnglish(page);
  await login(page, '/login?redirect=/conversation');
  await expect(page).toHaveURL(/\/conversation/);
});

/** A fresh API conversation with one answered question; returns its title. */
async function answeredConversation(page: Page, question: string): Promise<string> {
  const title = `E2E share ${Date.now() % 100000}`;
  await startConversation(page, 'OpenAI API', /^GPT-3\.5/, title);
  await send(page, question);
  await expect(page.getByTestId('send-button')).toBeVisible({ timeout: 20_000 });
  await expect(lastRow(page).locator('.cc-markdown, .cc-plain-text').first()).toBeVisible();
  return title;
}

async function openItemMenu(page: Page, title: string): Promise<void> {
  const item = page.getByTestId('conversation-list').locator('li', { hasText: title }).first();
  await item.getByTestId('conversation-menu').click();
}

test('a share link opens logged out with the messages only, and shows the 404 page once revoked', async ({
  page,
  browser,
}) => {
  const title = await answeredConversation(page, 'Please share this question');
  await openItemMenu(page, title);
  await page.getByTestId('share-item').click();
  await page.getByTestId('share-create').click();
  const url = await page.getByTestId('share-url').inputValue();
  expect(url).toMatch(/\/share\/[A-Za-z0-9_-]{32}$/);
  await expect(page.getByTestId('share-row')).toHaveCount(1);

  const visitor = await browser.newContext({ locale: 'en-US' });
  try {
    const shared = await visitor.newPage();
    await shared.addInitScript(() => localStorage.setItem('language', 'en-US'));
    await shared.goto(url);
    const view = shared.getByTestId('shared-conversation');
    await expect(view).toContainText(title);
    await expect(view.getByTestId('message-list')).toContainText('Please share this question');
    await expect(shared.getByTestId('user-menu')).toHaveCount(0);
    await expect(shared.getByTestId('conversation-list')).toHaveCount(0);

    await page.getByTestId('share-revoke').click();
    await expect(page.getByTestId('share-row')).toContainText('Revoked');

    await shared.reload();
    await expect(shared).toHaveURL(/\/error\/404$/);
    await expect(shared.getByTestId('error-status')).toHaveText('404');
  } finally {
    await visitor.close();
  }
});

test('a JSON export imports back as a new conversation', async ({ page }) => {
  const title = await answeredConversation(page, 'Export me and bring me back');
  await openItemMenu(page, title);
  const downloading = page.waitForEvent('download');
  await page.getByTestId('export-json-item').click();
  const download = await downloading;
  expect(download.suggestedFilename()).toBe(`${title}.json`);
  const file = await download.path();
  expect(JSON.parse(await readFile(file, 'utf8')).title).toBe(title);

  await page.getByTestId('import-input').setInputFiles(file);
  await expect(page.getByText('Conversation imported')).toBeVisible();
  const items = page.getByTestId('conversation-list').locator('li', { hasText: title });
  await expect(items).toHaveCount(2);
  // The imported conversation is opened, with the exported messages.
  await expect(page.getByTestId('message-list')).toContainText('Export me and bring me back');

  // A file that is not an export is refused with a message, and nothing is added.
  await page.getByTestId('import-input').setInputFiles({
    name: 'notes.json',
    mimeType: 'application/json',
    buffer: Buffer.from('{"title": "not an export"}'),
  });
  await expect(page.getByText('Import failed')).toBeVisible();
  await expect(items).toHaveCount(2);
});
