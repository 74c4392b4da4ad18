import { readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect } from '@playwright/test';
import type { Page } from '@playwright/test';
import Database from 'better-sqlite3';

export const ADMIN = { username: 'admin', password: 'admin-pass-123' };

/** Every spec runs in English unless it tests the language switch. */
export async function useEnglish(page: Page): Promise<void> {
  await page.addInitScript(() => {
    if (!localStorage.getItem('language')) localStorage.setItem('language', 'en-US');
  });
}

export async function login(page: Page, target = '/login'): Promise<void> {
  await page.goto(target);
  await page.getByLabel('Username').fill(ADMIN.username);
  await page.getByLabel('Password', { exact: true }).fill(ADMIN.password);
  await page.getByRole('button', { name: 'Log in' }).click();
  // Logging in, then loading the first page's code and data: allow for a busy machine.
  await expect(page.getByTestId('user-menu')).toBeVisible({ timeout: 30_000 });
}

/** Opens the new conversation form and starts a draft with the given source and model label. */
export async function startConversation(
  page: Page,
  source: 'OpenAI Web' | 'OpenAI API',
  model: RegExp,
  title = '',
): Promise<void> {
  await page.getByTestId('new-conversation').click();
  const form = page.getByTestId('new-conversation-form');
  await expect(form).toBeVisible();
  if (title) await form.getByLabel('Title').fill(title);
  await form.getByTestId('source-select').click();
  await page.getByRole('option', { name: source }).click();
  await form.getByTestId('model-select').click();
  await page.getByRole('option', { name: model }).first().click();
  await form.getByRole('button', { name: 'Confirm' }).click();
  await expect(form).toBeHidden();
}

export async function send(page: Page, text: string): Promise<void> {
  const input = page.getByTestId('chat-input');
  await input.fill(text);
  await input.press('Enter');
}

/** The last message row of the list. */
export function lastRow(page: Page) {
  return page.locator('[data-testid=message-list] article').last();
}

/**
 * The running server's SQLite database (serve.mjs names its data dir), for seeding what the UI cannot make, such
 * as conversations last updated days ago. Close it when done.
 */
export function e2eDatabase(): Database.Database {
  const port = process.env.E2E_PORT ?? '8123';
  const { dataDir } = JSON.parse(readFileSync(path.join(os.tmpdir(), `cc-e2e-${port}.json`), 'utf8')) as {
    dataDir: string;
  };
  const db = new Database(path.join(dataDir, 'database.db'));
  db.pragma('busy_timeout = 5000');
  return db;
}

/** The admin (logged in on `page`) registers a user; returns the new user's id. */
export async function registerUser(
  page: Page,
  baseURL: string,
  user: { username: string; password: string },
): Promise<number> {
  const session = (await page.context().cookies()).find((c) => c.name === 'cc_session')!;
  const created = await page.request.post('/api/auth/register', {
    headers: { cookie: `cc_session=${session.value}`, origin: new URL(baseURL).origin },
    data: { ...user, nickname: user.username, email: `${user.username}@example.com` },
  });
  expect(created.status()).toBe(201);
  return ((await created.json()) as { result: { id: number } }).result.id;
}

/** Logs `page` in as a user other than the admin. */
export async function loginAs(page: Page, user: { username: string; password: string }): Promise<void> {
  await page.goto('/login');
  await page.getByLabel('Username').fill(user.username);
  await page.getByLabel('Password', { exact: true }).fill(user.password);
  await page.getByRole('button', { name: 'Log in' }).click();
  await expect(page.getByTestId('user-menu')).toBeVisible({ timeout: 30_000 });
}

/** A 2×2 red PNG. */
export const PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAIAAAACCAIAAAD91JpzAAAAFklEQVR4nGP4z8DAwMDAxMDAwMDAAAANHQEDasKb6QAAAABJRU5ErkJggg==',
  'base64',
);

/** A file for a file chooser: the PNG above under a name. */
export function image(name: string) {
  return { name, mimeType: 'image/png', buffer: PNG };
}

export type UploadStrategy =
  'server_upload_only' | 'browser_upload_only' | 'browser_upload_when_file_size_exceed';

/** Sets the web source's upload strategy through the admin config API (the logged-in admin's session). */
export async function setUploadStrategy(page: Page, strategy: UploadStrategy): Promise<void> {
  const read = await page.request.get('/api/system/config');
  expect(read.ok()).toBe(true);
  const config = (await read.json()).result;
  const saved = await page.request.put('/api/system/config', {
    data: { ...config, openai_web: { ...config.openai_web, file_upload_strategy: strategy } },
  });
  expect(saved.ok(), await saved.text()).toBe(true);
}

/** Attaches files to the question through the upload button's file chooser. */
export async function attach(page: Page, files: { name: string; mimeType: string; buffer: Buffer }[]) {
  const chooser = page.waitForEvent('filechooser');
  await page.getByTestId('upload-button').click();
  await (await chooser).setFiles(files);
}
