import { expect, test } from '@playwright/test';
import type { Page } from '@playwright/test';
import { login, send, startConversation, useEnglish } from './helpers';

const suffix = Date.now() % 100000;

test.beforeEach(async ({ page }) => {
  await useEnglish(page);
  await login(page);
});

async function createUser(page: Page, username: string) {
  await page.goto('/admin/user');
  await page.getByRole('button', { name: 'Add user' }).click();
  const drawer = page.getByRole('dialog', { name: 'Create user' });
  await drawer.getByLabel('Username').fill(username);
  await drawer.getByLabel('Nickname').fill(username);
  await drawer.getByLabel('Email').fill(`${username}@example.com`);
  await drawer.getByLabel(/^Password/).fill('assign-pass-123');
  await drawer.getByRole('button', { name: 'Create' }).click();
  await expect(drawer).toBeHidden();
}

test('assign a conversation to another user', async ({ page }) => {
  const username = `owner${suffix}`;
  await createUser(page, username);
  const title = `E2E assign ${suffix}`;
  await page.goto('/conversation');
  await startConversation(page, 'OpenAI API', /^GPT-3\.5/, title);
  await send(page, 'Hello there');
  await expect(page).toHaveURL(/\?id=/, { timeout: 20_000 });
  await expect(page.getByTestId('send-button')).toBeVisible({ timeout: 20_000 });

  await page.goto('/admin/conversation');
  await page.getByLabel('Search title').fill(title);
  const row = page.getByRole('row').filter({ hasText: title });
  await expect(row).toHaveCount(1);
  await row.getByRole('checkbox').check();
  await page.getByTestId('bulk-actions').getByRole('button', { name: 'Assign to user' }).click();
  const dialog = page.getByRole('dialog', { name: 'Assign 1 conversation(s)' });
  await dialog.getByRole('button', { name: 'Assign to user' }).click();
  await expect(dialog.getByText('No user selected', { exact: false })).toBeVisible();
  await dialog.getByRole('combobox', { name: 'User' }).fill(username);
  await page.getByRole('option', { name: new RegExp(username) }).click();
  await dialog.getByRole('button', { name: 'Assign to user' }).click();
  await expect(dialog).toBeHidden();
  await expect(row).toContainText(username);

  // The history opens read-only in a drawer.
  await row.getByRole('button', { name: `View history of ${title}` }).click();
  await expect(page.getByTestId('admin-history').getByTestId('message-list')).toContainText('Hello there');
});

test('add a server with validation, then delete it', async ({ page }) => {
  const hostname = `e2e-server-${suffix}`;
  await page.goto('/admin/machine');
  await page.getByRole('button', { name: 'Add server' }).click();
  const dialog = page.getByRole('dialog', { name: 'Add server' });
  await dialog.getByRole('button', { name: 'Add server' }).click();
  await expect(dialog.getByRole('alert')).toContainText('Hostname, IP address and status are required');
  await dialog.getByLabel('Hostname').fill(hostname);
  await dialog.getByLabel('IP address').fill('127.0.0.1');
  // Disabled, so the scheduler never sends real asks to it during the suite.
  await dialog.getByRole('combobox', { name: /^Status/ }).click();
  await page.getByRole('option', { name: 'Disabled' }).click();
  await dialog.getByRole('button', { name: 'Add server' }).click();
  await expect(dialog).toBeHidden();
  const row = page.getByRole('row').filter({ hasText: hostname });
  await expect(row).toContainText('Disabled');

  await page.getByRole('button', { name: 'Check now' }).click();
  await expect(page.getByTestId('check-result')).toBeVisible();

  await row.getByRole('button', { name: `Delete ${hostname}` }).click();
  await page.getByRole('dialog', { name: 'Delete server' }).getByRole('button', { name: 'Delete' }).click();
  await expect(page.getByRole('row').filter({ hasText: hostname })).toHaveCount(0);
});

test('run a task now', async ({ page }) => {
  await page.goto('/admin/task');
  const run = page.getByRole('button', { name: /^Run .+ now$/ }).first();
  await expect(run).toBeVisible();
  await run.click();
  await expect(page.getByTestId('task-run-result')).toBeVisible({ timeout: 30_000 });
  // The run is in the task's history, with its outcome in words.
  await page
    .getByRole('button', { name: /^Run history of / })
    .first()
    .click();
  const history = page.getByRole('dialog');
  await expect(history.getByRole('row')).not.toHaveCount(1);
  await expect(history.getByText('By hand').first()).toBeVisible();
  await expect(history.getByText('Succeeded').first()).toBeVisible();
});

test('filter the server log and the completion log', async ({ page }) => {
  await page.goto('/admin/log');
  const log = page.getByTestId('server-log');
  await expect(log).toBeVisible();
  const entries = log.getByTestId('log-entry');
  if ((await entries.count()) > 0) {
    // Entries read as time, level and message, not as JSON.
    await expect(log).not.toContainText('"level"');
    const message = (await entries.first().getByTestId('log-message').innerText()).trim();
    const keyword = message.slice(0, Math.min(12, message.length));
    const search = page.getByRole('searchbox', { name: 'Search' });
    await search.fill(keyword);
    await expect(entries.first()).toContainText(keyword);
    await search.fill('');
    const exclude = page.getByRole('combobox', { name: 'Exclude keywords' });
    await exclude.fill(keyword);
    await exclude.press('Enter');
    await expect(entries.filter({ hasText: keyword })).toHaveCount(0);
  }
  await page.getByRole('tab', { name: 'Completion log' }).click();
  await page.getByRole('button', { name: '30d' }).click();
  await expect(page.getByRole('table', { name: 'Completion log' })).toBeVisible();
});

test('change a config value: bounds are checked and restart keys listed', async ({ page }) => {
  await page.goto('/admin/config');
  // Fields are named in words, with units; sections read at boot only are disabled.
  await expect(page.getByRole('textbox', { name: /^Port/ })).toBeDisabled();
  await expect(page.getByRole('textbox', { name: /^Session lifetime \(seconds\)/ })).toBeVisible();
  await expect(page.getByText('jwt_lifetime_seconds')).toHaveCount(0);
  // The provider settings have one place: their own page.
  await expect(page.getByRole('textbox', { name: /^GPT-4 asks per 3 hours/ })).toHaveCount(0);
  await page.getByRole('link', { name: 'Open provider settings' }).click();
  await expect(page).toHaveURL(/\/admin\/openai_settings$/);
  const cap = page.getByRole('textbox', { name: /^GPT-4 asks per 3 hours/ });
  await expect(cap).toBeVisible();
  await cap.fill('-2');
  await page.getByRole('button', { name: 'Save' }).click();
  await expect(page.getByText('Must be at least -1').first()).toBeVisible();
  await cap.fill('60');
  await page.getByRole('switch', { name: /^Sync conversations at start-up/ }).click();
  await page.getByRole('button', { name: 'Save' }).click();
  await expect(page.getByTestId('restart-required')).toContainText(
    'OpenAI Web (account) › Sync conversations at start-up',
  );
  await page.reload();
  await expect(page.getByRole('textbox', { name: /^GPT-4 asks per 3 hours/ })).toHaveValue('60');
});
