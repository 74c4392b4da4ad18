import { expect, test } from '@playwright/test';
import { ADMIN, login, useEnglish } from './helpers';

test.beforeEach(async ({ page }) => useEnglish(page));

test('a wrong password shows the bad-credentials message', async ({ page }) => {
  await page.goto('/login');
  await page.getByLabel('Username').fill(ADMIN.username);
  await page.getByLabel('Password', { exact: true }).fill('definitely-wrong');
  await page.getByRole('button', { name: 'Log in' }).click();
  await expect(page.getByText('Incorrect username or password').first()).toBeVisible();
  // The message above the form is shown whole (it once got a sliver of the page's height).
  const alert = page.getByRole('alert').filter({ hasText: 'Incorrect username or password' });
  expect(await alert.evaluate((element) => element.scrollHeight - element.clientHeight)).toBe(0);
  await expect(page).toHaveURL(/\/login/);
  await expect(page.getByTestId('not-logged-in')).toBeVisible();
});

test('/login opened directly is a small page of its own; logging in lands in the app, which says so', async ({
  page,
}) => {
  const scripts: string[] = [];
  page.on('request', (request) => {
    if (request.resourceType() === 'script') scripts.push(new URL(request.url()).pathname);
  });
  await page.goto('/login?redirect=%2Fconversation');
  await expect(page.getByRole('button', { name: 'Log in' })).toBeVisible();
  // The page is for logging in: the username field has the focus from the start.
  await expect(page.getByLabel('Username')).toBeFocused();
  // Neither the app's router nor its chat or menu code comes with it.
  expect(scripts.some((s) => /\/assets\/login-[^/]+\.js$/.test(s))).toBe(true);
  expect(scripts.filter((s) => /\/(index|header-menus|conversation-route)-/.test(s))).toEqual([]);
  // The theme menu loads when its button is used.
  await page.getByTestId('theme-toggle').click();
  await expect(page.getByRole('menuitemradio', { name: 'Dark' })).toBeVisible();
  await page.keyboard.press('Escape');
  await page.getByLabel('Username').fill(ADMIN.username);
  await page.getByLabel('Password', { exact: true }).fill(ADMIN.password);
  await page.getByRole('button', { name: 'Log in' }).click();
  await expect(page).toHaveURL(/\/conversation$/);
  await expect(page.getByTestId('user-menu')).toBeVisible({ timeout: 30_000 });
  await expect(page.getByText('Logged in successfully')).toBeVisible();
});

test('empty fields show the validation messages', async ({ page }) => {
  await page.goto('/login');
  await page.getByRole('button', { name: 'Log in' }).click();
  await expect(page.getByText('Please enter the username')).toBeVisible();
  await expect(page.getByText('Please enter the password')).toBeVisible();
});

test('a protected page sends a visitor to login with a redirect query, honoured after login', async ({
  page,
}) => {
  await page.goto('/conversation');
  await expect(page).toHaveURL(/\/login\?redirect=%2Fconversation/);
  await expect(page.getByText('User not logged in')).toBeVisible();
  await page.getByLabel('Username').fill(ADMIN.username);
  await page.getByLabel('Password', { exact: true }).fill(ADMIN.password);
  await page.getByRole('button', { name: 'Log in' }).click();
  await expect(page).toHaveURL(/\/conversation$/);
  await expect(page.getByTestId('greeting')).toHaveText('Hi, admin');
  await expect(page.getByTestId('app-version')).toHaveText('v1.0.1');
});

test('the session survives a reload (HttpOnly cookie + local flag) and logout ends it', async ({
  page,
  context,
}) => {
  await login(page);
  const cookies = await context.cookies();
  expect(cookies.find((c) => c.name === 'cc_session')?.httpOnly).toBe(true);
  expect(await page.evaluate(() => document.cookie.includes('cc_session'))).toBe(false);
  await page.reload();
  await expect(page.getByTestId('user-menu')).toBeVisible();
  await page.getByTestId('user-menu').click();
  await page.getByRole('menuitem', { name: 'Log out' }).click();
  await page.getByRole('dialog').getByRole('button', { name: 'Log out' }).click();
  await expect(page.getByText('Logged out successfully')).toBeVisible();
  await expect(page).toHaveURL(/\/login/);
  await page.goto('/conversation');
  await expect(page).toHaveURL(/\/login\?redirect=/);
});

test('the profile modal lists the user fields', async ({ page }) => {
  await login(page);
  await page.getByTestId('user-menu').click();
  await page.getByRole('menuitem', { name: 'Profile' }).click();
  const table = page.getByTestId('profile-table');
  await expect(table).toBeVisible();
  await expect(table.getByText('admin').first()).toBeVisible();
  await expect(table.getByText('Last active')).toBeVisible();
});

test('plain HTTP under a LAN hostname renders and logs in (no HSTS, no upgrade to https)', async ({
  playwright,
}) => {
  const browser = await playwright.chromium.launch({
    executablePath: '/usr/bin/chromium',
    args: ['--no-sandbox', '--disable-gpu', '--host-resolver-rules=MAP chat.lan 127.0.0.1'],
  });
  try {
    const lan = `http://chat.lan:${process.env.E2E_PORT ?? '8123'}`;
    const page = await browser.newPage({ locale: 'en-US', baseURL: lan });
    await useEnglish(page);
    const response = await page.goto('/login');
    expect(response?.headers()['strict-transport-security']).toBeUndefined();
    expect(response?.headers()['content-security-policy'] ?? '').not.toContain('upgrade-insecure-requests');
    await login(page, '/login');
    expect(new URL(page.url()).origin).toBe(lan);
  } finally {
    await browser.close();
  }
});
