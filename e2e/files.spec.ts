import { expect, test } from '@playwright/test';
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

const GPT4 = /^GPT-4(?!\s*\()/;

test.beforeEach(async ({ page }) => {
  await useEnglish(page);
  await login(page, '/login?redirect=/conversation');
  await expect(page).toHaveURL(/\/conversation/);
});

test.afterEach(async ({ page }) => {
  await setUploadStrategy(page, 'browser_upload_only');
});

test('no upload region where uploads do not apply (GPT-3.5)', async ({ page }) => {
  await startConversation(page, 'OpenAI Web', /^GPT-3\.5(?!\s*\()/);
  await expect(page.getByTestId('chat-input')).toBeVisible();
  await expect(page.getByTestId('upload-button')).toHaveCount(0);
});

test('attach an image and files (picker and drag-and-drop), ask about them, see them in the question', async ({
  page,
}) => {
  // The browser strategy needs the upload host to allow this origin (CORS, CSP); the server relay always works.
  await setUploadStrategy(page, 'server_upload_only');
  await startConversation(page, 'OpenAI Web', GPT4, `Files ${Date.now() % 100000}`);

  await attach(page, [
    image('dot.png'),
    { name: 'notes.txt', mimeType: 'text/plain', buffer: Buffer.from('Some notes for the model.\n') },
  ]);
  const items = page.getByTestId('upload-item');
  await expect(items).toHaveCount(2);
  await expect(page.getByTestId('upload-thumbnail')).toBeVisible();
  await expect(page.getByTestId('upload-count')).toHaveText('2');

  // Drag-and-drop a third file onto the input.
  const dataTransfer = await page.evaluateHandle(() => {
    const dt = new DataTransfer();
    dt.items.add(new File(['# dropped\n'], 'dropped.md', { type: 'text/markdown' }));
    return dt;
  });
  const zone = page.getByTestId('upload-dropzone');
  await zone.dispatchEvent('dragenter', { dataTransfer });
  await zone.dispatchEvent('dragover', { dataTransfer });
  await zone.dispatchEvent('drop', { dataTransfer });
  await expect(items).toHaveCount(3);

  for (const item of await items.all()) await expect(item).toHaveAttribute('data-status', 'done');
  await expect(page.getByTestId('upload-progress')).toHaveCount(0);

  await send(page, 'What is in these files?');
  // The input is cleared for the next question.
  await expect(items).toHaveCount(0);

  const answer = lastRow(page);
  await expect(answer).toContainText('I received', { timeout: 20_000 });
  await expect(answer).toContainText('notes.txt');
  await expect(answer).toContainText('dropped.md');
  await expect(answer).toContainText('file-service://');
  await expect(page.getByTestId('send-button')).toBeVisible({ timeout: 20_000 });

  // The question shows the image as a thumbnail (served through our server) and the files as chips.
  const question = page.locator('[data-testid=message-list] article[data-role=user]').last();
  const thumbnail = question.getByTestId('message-image');
  await expect(thumbnail).toBeVisible();
  await expect
    .poll(() => thumbnail.evaluate((img: HTMLImageElement) => img.complete && img.naturalWidth))
    .toBe(2);
  const chips = question.getByTestId('attachment-chip');
  await expect(chips).toHaveCount(2);
  await expect(chips.first()).toContainText('notes.txt');
  const href = await chips.first().getAttribute('href');
  expect(href).toMatch(/^\/api\/files\/openai-web\/file[-_][\w-]+\/content$/);
  const download = await page.request.get(href!);
  expect(download.status()).toBe(200);
  expect(await download.text()).toBe('Some notes for the model.\n');

  // Reloading shows the stored question the same way.
  await page.reload();
  const stored = page.locator('[data-testid=message-list] article[data-role=user]').last();
  await expect(stored.getByTestId('message-image')).toBeVisible();
  await expect(stored.getByTestId('attachment-chip')).toHaveCount(2);
});

test('at most 4 images per question; removing one makes room again', async ({ page }) => {
  await setUploadStrategy(page, 'server_upload_only');
  await startConversation(page, 'OpenAI Web', GPT4);
  await attach(
    page,
    ['1', '2', '3', '4', '5'].map((n) => image(`img${n}.png`)),
  );
  await expect(page.getByText('Up to 4 images can be uploaded')).toBeVisible();
  const items = page.getByTestId('upload-item');
  await expect(items).toHaveCount(4);
  await items.first().getByTestId('upload-remove').click();
  await expect(items).toHaveCount(3);
  await attach(page, [image('img6.png')]);
  await expect(items).toHaveCount(4);
  for (const item of await items.all()) await expect(item).toHaveAttribute('data-status', 'done');
});

test('the default browser strategy: the bytes go straight to the blob host, then the question uses them', async ({
  page,
}) => {
  await setUploadStrategy(page, 'browser_upload_only');
  await startConversation(page, 'OpenAI Web', GPT4);
  await attach(page, [image('direct.png')]);
  const item = page.getByTestId('upload-item');
  await expect(item).toHaveAttribute('data-status', 'done');
  await page.getByTestId('chat-input').fill('what is in this picture?');
  await expect(page.getByTestId('send-button')).toBeEnabled();
  await page.getByTestId('chat-input').press('Enter');
  await expect(lastRow(page)).toContainText('file-service://', { timeout: 20_000 });
});
