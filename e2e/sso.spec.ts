import AxeBuilder from '@axe-core/playwright';
import { expect, test } from '@playwright/test';
import type { Page } from '@playwright/test';
import { login, useEnglish } from './helpers';

// e2e/serve.mjs runs a real OpenID Connect provider beside the product and turns single sign-on on with it
// (button "Team IdP", new users created).

test.beforeEach(async ({ page }) => {
  await useEnglish(page);
});

/** At the provider's own pages: any login name signs in; then the consent page. */
async function signInAtProvider(page: Page, name: string): Promise<void> {
  await expect(page).toHaveURL(/127\.0\.0\.1:\d+\/interaction\//);
  await page.locator('input[name="login"]').fill(name);
  await page.locator('input[name="password"]').fill('any-password');
  await page.getByRole('button', { name: 'Sign-in' }).click();
  await page.getByRole('button', { name: 'Continue' }).click();
}

test('a person signs in with the team identity provider and lands in the chat', async ({ page }) => {
  await page.goto('/login');
  await page.getByRole('link', { name: 'Sign in with Team IdP' }).click();
  await signInAtProvider(page, 'sso-e2e-person');
  await expect(page).toHaveURL(/\/conversation/);
  await expect(page.getByTestId('user-menu')).toContainText('sso-e2e-person', { timeout: 30_000 });
  await expect(page.getByTestId('new-conversation')).toBeVisible();
});

test('an invite link made by the admin lets a logged-out visitor create an account and log in', async ({
  page,
  browser,
}) => {
  await login(page, '/admin/invite');
  await expect(page.getByRole('heading', { name: 'Invite links' })).toBeVisible();
  await page.getByLabel('Accounts it may create').fill('1');
  await page.getByRole('button', { name: 'Create invite link' }).click();
  const url = await page.getByTestId('invite-url').inputValue();
  expect(url).toMatch(/\/invite\/[A-Za-z0-9_-]{32}$/);
  await expect(page.getByRole('table').getByText('0 / 1')).toBeVisible();

  const visitorContext = await browser.newContext({ locale: 'en-US' });
  try {
    const visitor = await visitorContext.newPage();
    await useEnglish(visitor);
    await visitor.goto(url);
    await visitor.getByLabel('Username').fill('invited-e2e');
    await visitor.getByLabel('Password', { exact: true }).fill('invited-pass-1');
    await visitor.getByLabel('Repeat the password').fill('invited-pass-1');
    await visitor.getByRole('button', { name: 'Create my account' }).click();
    await expect(visitor).toHaveURL(/\/login/);
    // The address changes before the login page replaces the invite form (the router renders the new page in a
    // transition): fill the login form only once it is there, not the invite form's own Username field.
    await expect(visitor.getByRole('button', { name: 'Log in' })).toBeVisible();
    await expect(visitor.getByRole('button', { name: 'Create my account' })).toHaveCount(0);
    await visitor.getByLabel('Username').fill('invited-e2e');
    await visitor.getByLabel('Password', { exact: true }).fill('invited-pass-1');
    await visitor.getByRole('button', { name: 'Log in' }).click();
    await expect(visitor.getByTestId('user-menu')).toContainText('invited-e2e', { timeout: 30_000 });

    // Single use: the link now says so.
    await visitor.goto(url);
    await expect(visitor.getByRole('alert')).toContainText('used up');
  } finally {
    await visitorContext.close();
  }
  await page.getByRole('button', { name: 'Refresh' }).click();
  await expect(page.getByRole('table').getByText('1 / 1')).toBeVisible();
});

test('the sign-in button, the invite page and the invite admin page have no serious accessibility problem', async ({
  page,
}) => {
  const scan = async (where: string) => {
    await expect(page.locator('.mantine-Loader-root:visible')).toHaveCount(0, { timeout: 15_000 });
    const results = await new AxeBuilder({ page })
      .withTags(['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'])
      .options({ resultTypes: ['violations'] })
      .analyze();
    const blocking = results.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
    expect(
      blocking.map((v) => `${where}: ${v.id} ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`),
    ).toEqual([]);
  };
  await page.goto('/login?sso_error=refused');
  await expect(page.getByRole('link', { name: 'Sign in with Team IdP' })).toBeVisible();
  await expect(page.getByRole('alert')).toContainText('no access here');
  await scan('login');
  await page.goto('/invite/not-a-real-invite-token-at-all');
  await expect(page.getByRole('alert')).toContainText('not valid');
  await scan('invite');
  await login(page, '/admin/invite');
  await expect(page.getByRole('heading', { name: 'Invite links' })).toBeVisible();
  await scan('admin invite');
});
