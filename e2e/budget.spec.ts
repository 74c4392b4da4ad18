import { expect, test } from '@playwright/test';
import { login, loginAs, send, startConversation, useEnglish } from './helpers';

const suffix = Date.now() % 100000;
const USER = { username: `budget${suffix}`, password: 'budget-pass-123' };

test('the admin prices GPT-3.5 and gives a user a small budget; the user is warned, then refused once it is spent', async ({
  page,
  browser,
  baseURL,
}) => {
  test.setTimeout(180_000);
  await useEnglish(page);
  await login(page);

  // Prices: GPT-3.5 costs nothing per input token and 1000 per million output tokens (0.001 each); an ask
  // reserves 10 output tokens up front.
  await page.goto('/admin/config');
  const prices = page.getByTestId('prices-editor');
  await expect(prices).toBeVisible();
  await prices.getByRole('textbox', { name: 'Input price of GPT-3.5', exact: true }).fill('0');
  await prices.getByRole('textbox', { name: 'Output price of GPT-3.5', exact: true }).fill('1000');
  await page.getByRole('textbox', { name: /^Output tokens reserved per question/ }).fill('10');
  await page.getByRole('button', { name: 'Save' }).click();
  await page.reload();
  await expect(
    page.getByTestId('prices-editor').getByRole('textbox', { name: 'Output price of GPT-3.5', exact: true }),
  ).toHaveValue('1000');

  // The user, with a budget of 0.45: an answer of 100 words (tokens, as the emulator counts them) costs 0.10.
  await page.goto('/admin/user');
  await page.getByRole('button', { name: 'Add user' }).click();
  const drawer = page.getByRole('dialog', { name: 'Create user' });
  await drawer.getByLabel('Username').fill(USER.username);
  await drawer.getByLabel('Nickname').fill(USER.username);
  await drawer.getByLabel('Email').fill(`${USER.username}@example.com`);
  await drawer.getByLabel(/^Password/).fill(USER.password);
  await drawer.getByRole('button', { name: 'Create' }).click();
  await expect(drawer).toBeHidden();
  // (Other specs' users may fill the list's first page.)
  await page.getByLabel('Search users').fill(USER.username);
  const row = page.getByRole('row').filter({ hasText: USER.username });
  await row.getByRole('button', { name: `More actions for ${USER.username}` }).click();
  await page.getByRole('menuitem', { name: 'Quotas and permissions' }).click();
  const settings = page.getByRole('dialog', { name: `Quotas and permissions of ${USER.username}` });
  const budget = settings.getByRole('textbox', { name: /^Budget/ });
  // A budget below -1 is refused as typed.
  await budget.fill('-3');
  await expect(settings.getByText('Must be at least -1').first()).toBeVisible();
  await budget.fill('0.45');
  await settings.getByRole('button', { name: 'Save' }).click();
  await expect(settings).toBeHidden();
  await expect(row.getByTestId('limits-budget')).toContainText('Budget: $0.45 left');

  const context = await browser.newContext({ baseURL });
  const user = await context.newPage();
  await useEnglish(user);
  await loginAs(user, USER);
  await expect(user).toHaveURL(/\/conversation/);
  await startConversation(user, 'OpenAI API', /^GPT-3\.5/, `Budget ${suffix}`);
  await expect(user.getByTestId('budget-left')).toHaveText('Budget left: $0.45');

  const ask = async () => {
    await send(user, '#long 100');
    await expect(user.getByTestId('send-button')).toBeVisible({ timeout: 20_000 });
  };
  // Three answers: 0.30 of 0.45 spent (67%), no warning yet.
  for (let i = 0; i < 3; i++) {
    await ask();
    await expect(user.getByTestId('ask-error')).toHaveCount(0);
  }
  await expect(user.getByTestId('budget-left')).toHaveText('Budget left: $0.15');
  await expect(user.getByTestId('budget-warning')).toHaveCount(0);

  // The fourth: 0.40 spent, 89% ≥ 80%: a warning that blocks nothing, with the amount left.
  await ask();
  const warning = user.getByTestId('budget-warning');
  await expect(warning).toContainText('Most of your budget is spent');
  await expect(warning).toContainText('$0.05 left');
  await expect(user.getByTestId('chat-input')).toBeEnabled();

  // The fifth is answered; it costs more than what was left, which is all it is charged: the budget is spent.
  await ask();
  await expect(user.getByTestId('ask-error')).toHaveCount(0);
  await expect(warning).toContainText('Your budget is spent');
  await expect(user.getByTestId('remaining-asks')).toHaveText('Asks left: 0');

  // Nothing more can be sent, and the message box says why; nothing more is spent.
  await user.getByTestId('chat-input').fill('one more');
  await expect(user.getByTestId('send-button')).toBeDisabled();
  await expect(user.getByTestId('send-notice')).toContainText('No asks left for this model');

  // My usage shows the budget, what was spent and what is left.
  await user.getByTestId('user-menu').click();
  await user.getByRole('menuitem', { name: 'Profile' }).click();
  await expect(user.getByTestId('my-budget-total')).toContainText('$0.45 spent of $0.45 · $0.00 left');
  await context.close();
});
