import { expect } from '@playwright/test';
import type { Page } from '@playwright/test';

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
