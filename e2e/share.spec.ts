import { readFile } from 'node:fs/promises';
import { expect, test } from '@playwright/test';
import type { Page } from '@playwright/test';
import {
  attach,
  image,
  lastRow,
  login,
  send,
  setUploadStrategy,
  startConversation,
  useEnglish,
} from './helpers';

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

test('a shared question shows its uploaded image and attachment to a logged-out visitor, through the link', async ({
  page,
  browser,
}) => {
  // The server relay works without the upload host allowing this origin (as in files.spec.ts).
  await setUploadStrategy(page, 'server_upload_only');
  try {
    const title = `E2E share files ${Date.now() % 100000}`;
    await startConversation(page, 'OpenAI Web', /^GPT-4(?!\s*\()/, title);
    await attach(page, [
      image('dot.png'),
      { name: 'notes.txt', mimeType: 'text/plain', buffer: Buffer.from('Notes to share.\n') },
    ]);
    const items = page.getByTestId('upload-item');
    await expect(items).toHaveCount(2);
    for (const item of await items.all()) await expect(item).toHaveAttribute('data-status', 'done');
    await send(page, 'What is in this picture?');
    await expect(lastRow(page)).toContainText('I received', { timeout: 20_000 });
    await expect(page.getByTestId('send-button')).toBeVisible({ timeout: 20_000 });

    await openItemMenu(page, title);
    await page.getByTestId('share-item').click();
    await page.getByTestId('share-create').click();
    const url = await page.getByTestId('share-url').inputValue();
    const token = url.split('/share/')[1]!;

    const visitor = await browser.newContext({ locale: 'en-US' });
    try {
      const shared = await visitor.newPage();
      const ownerFileRequests: string[] = [];
      shared.on('request', (r) => {
        if (new URL(r.url()).pathname.startsWith('/api/files')) ownerFileRequests.push(r.url());
      });
      await shared.addInitScript(() => localStorage.setItem('language', 'en-US'));
      await shared.goto(url);
      const question = shared.locator('[data-testid=message-list] article[data-role=user]').first();
      await expect(question).toContainText('What is in this picture?');

      const thumbnail = question.getByTestId('message-image');
      await expect(thumbnail).toBeVisible();
      expect(await thumbnail.getAttribute('src')).toMatch(
        new RegExp(`^/api/share/${token}/files/file[-_][\\w-]+$`),
      );
      await expect
        .poll(() => thumbnail.evaluate((img: HTMLImageElement) => img.complete && img.naturalWidth))
        .toBe(2);

      const chip = question.getByTestId('attachment-chip');
      await expect(chip).toHaveCount(1);
      await expect(chip).toContainText('notes.txt');
      const href = (await chip.getAttribute('href'))!;
      expect(href).toMatch(new RegExp(`^/api/share/${token}/files/file[-_][\\w-]+$`));
      const download = await shared.request.get(href);
      expect(download.status()).toBe(200);
      expect(await download.text()).toBe('Notes to share.\n');
      expect(ownerFileRequests).toEqual([]);
      // The owner's file route stays closed to the visitor.
      const fileId = href.split('/').pop()!;
      const owners = await shared.request.get(`/api/files/openai-web/${fileId}/content`);
      expect(owners.status()).toBe(401);

      // Revoking the link closes its files too.
      await page.getByTestId('share-revoke').click();
      await expect(page.getByTestId('share-row')).toContainText('Revoked');
      expect((await shared.request.get(href)).status()).toBe(404);
    } finally {
      await visitor.close();
    }
  } finally {
    await setUploadStrategy(page, 'browser_upload_only');
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
