import { expect, test } from '@playwright/test';
import { login, loginAs, registerUser, startConversation, useEnglish } from './helpers';

test('unknown paths go to 404, / goes to /home, the redirect page redirects', async ({ page }) => {
  await useEnglish(page);
  await page.goto('/no/such/page');
  await expect(page).toHaveURL(/\/error\/404$/);
  await expect(page.getByTestId('error-status')).toHaveText('404');
  await page.goto('/');
  await expect(page).toHaveURL(/\/home$/);
  await page.goto('/redirect/error/403');
  await expect(page).toHaveURL(/\/error\/403$/);
  await expect(page.getByTestId('error-status')).toHaveText('403');
});

test('a non-superuser opening /admin goes to 403; the superuser sees /admin/system', async ({
  page,
  request,
  baseURL,
}) => {
  await useEnglish(page);
  await login(page);
  await page.goto('/admin');
  await expect(page).toHaveURL(/\/admin\/system$/);
  await expect(page.getByRole('heading', { name: 'System management' })).toBeVisible();

  // Create an ordinary user through the API with the admin session, then log in as them.
  const cookies = await page.context().cookies();
  const session = cookies.find((c) => c.name === 'cc_session')!;
  const name = `user${Date.now() % 100000}`;
  const created = await request.post('/api/auth/register', {
    headers: {
      cookie: `cc_session=${session.value}`,
      origin: new URL(baseURL ?? 'http://127.0.0.1:8123').origin,
    },
    data: { username: name, nickname: name, email: `${name}@example.com`, password: 'user-pass-123' },
  });
  expect(created.status()).toBe(201);
  await page.context().clearCookies();
  await page.evaluate(() => localStorage.removeItem('loginExpiresAt'));
  await page.goto('/login');
  await page.getByLabel('Username').fill(name);
  await page.getByLabel('Password', { exact: true }).fill('user-pass-123');
  await page.getByRole('button', { name: 'Log in' }).click();
  await expect(page).toHaveURL(/\/conversation/);
  await page.goto('/admin/user');
  await expect(page).toHaveURL(/\/error\/403$/);
});

test('the chat page fetches the admin strings only for the demo-mode note a superuser sees', async ({
  page,
  baseURL,
}) => {
  await useEnglish(page);
  const adminStrings: string[] = [];
  page.on('request', (r) => /\/admin\.(en-US|zh-CN)[-.]/.test(r.url()) && adminStrings.push(r.url()));
  await login(page);
  // A superuser lands on the admin pages (which load the strings): the chat page opened afresh.
  adminStrings.length = 0;
  await page.goto('/conversation');
  const note = page.getByTestId('demo-notice');
  await expect(note).toContainText('Demo mode');
  await expect(note).not.toContainText('adminx.');
  expect(adminStrings).toHaveLength(1);

  const plain = { username: `plain${Date.now() % 100000}`, password: 'user-pass-123' };
  await registerUser(page, baseURL ?? 'http://127.0.0.1:8123', plain);
  await page.context().clearCookies();
  await page.evaluate(() => localStorage.removeItem('loginExpiresAt'));
  adminStrings.length = 0;
  await loginAs(page, plain);
  await expect(page.getByTestId('new-conversation')).toBeVisible();
  await expect(note).toHaveCount(0);
  expect(adminStrings).toEqual([]);
});

test('the language menu switches between 简体中文 (default) and English', async ({ page }) => {
  await page.goto('/home');
  await expect(page.getByTestId('not-logged-in')).toHaveText('未登录');
  await expect(page.locator('html')).toHaveAttribute('lang', 'zh-CN');
  await page.getByTestId('language-menu').click();
  await page.getByRole('menuitemradio', { name: 'English' }).click();
  await expect(page.getByTestId('not-logged-in')).toHaveText('Not logged in');
  await page.reload();
  await expect(page.getByTestId('not-logged-in')).toHaveText('Not logged in');
  await expect(page.locator('html')).toHaveAttribute('lang', 'en-US');
});

test('the theme follows the device when nothing is stored', async ({ page }) => {
  await page.emulateMedia({ colorScheme: 'dark' });
  await page.goto('/home');
  await expect(page.locator('html')).toHaveAttribute('data-mantine-color-scheme', 'dark');
});

test('preferences apply on confirm and persist', async ({ page }) => {
  await useEnglish(page);
  await login(page);
  await page.getByTestId('user-menu').click();
  await page.getByRole('menuitem', { name: 'Preferences' }).click();
  const dialog = page.getByRole('dialog');
  await dialog.getByTestId('pref-send-key').click();
  await page.getByRole('option', { name: 'Ctrl+Enter' }).click();
  await dialog.getByRole('switch', { name: 'Wrap long code lines' }).check();
  await dialog.getByRole('button', { name: 'Confirm' }).click();
  await expect(page.getByText('Preferences saved')).toBeVisible();
  const stored = await page.evaluate(() => JSON.parse(localStorage.getItem('preference') ?? '{}'));
  expect(stored).toMatchObject({ sendKey: 'Ctrl+Enter', codeAutoWrap: true, widerConversationPage: true });
  await page.reload();
  await page.goto('/conversation');
  await page.getByTestId('user-menu').click();
  await page.getByRole('menuitem', { name: 'Preferences' }).click();
  await expect(page.getByRole('dialog').getByTestId('pref-send-key')).toHaveValue('Ctrl+Enter');
  await page.keyboard.press('Escape');

  // The send key is honoured: Enter now makes a new line, Ctrl+Enter sends.
  await startConversation(page, 'OpenAI API', /^GPT-3\.5/);
  const input = page.getByTestId('chat-input');
  await input.fill('first line');
  await input.press('Enter');
  await input.pressSequentially('second line');
  await expect(input).toHaveValue('first line\nsecond line');
  await expect(page.locator('[data-testid=message-list] article')).toHaveCount(0);
  await input.press('Control+Enter');
  await expect(page.locator('[data-testid=message-list] article').last()).toContainText('You asked', {
    timeout: 20_000,
  });
  await expect(input).toHaveValue('');
});
