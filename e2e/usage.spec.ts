import { readFileSync } from 'node:fs';
import { expect, test } from '@playwright/test';
import { login, send, startConversation, useEnglish } from './helpers';

const suffix = Date.now() % 100000;
const USER = { username: `usage${suffix}`, password: 'usage-pass-123' };

test('a user asks twice; the admin sees 2 asks with tokens and downloads the CSV; the user sees My usage', async ({
  page,
  browser,
  baseURL,
}) => {
  test.setTimeout(120_000);
  // The admin creates the user.
  await useEnglish(page);
  await login(page);
  const session = (await page.context().cookies()).find((c) => c.name === 'cc_session')!;
  const created = await page.request.post('/api/auth/register', {
    headers: { cookie: `cc_session=${session.value}`, origin: new URL(baseURL!).origin },
    data: {
      username: USER.username,
      nickname: USER.username,
      email: `${USER.username}@example.com`,
      password: USER.password,
    },
  });
  expect(created.status()).toBe(201);

  // The user asks twice in one conversation.
  const context = await browser.newContext({ baseURL });
  const user = await context.newPage();
  await useEnglish(user);
  await user.goto('/login');
  await user.getByLabel('Username').fill(USER.username);
  await user.getByLabel('Password', { exact: true }).fill(USER.password);
  await user.getByRole('button', { name: 'Log in' }).click();
  await expect(user).toHaveURL(/\/conversation/);
  await startConversation(user, 'OpenAI API', /^GPT-3\.5/, `Usage ${suffix}`);
  for (const question of ['Hello there', 'And a second question']) {
    await send(user, question);
    await expect(user.getByTestId('send-button')).toBeVisible({ timeout: 20_000 });
    await expect(user.getByTestId('ask-error')).toHaveCount(0);
  }

  // The admin finds the user in the user list (other specs' users may fill its first page) and follows the usage link.
  await page.goto('/admin/user');
  await page.getByLabel('Search users').fill(USER.username);
  await page.getByRole('link', { name: `Usage of ${USER.username}` }).click();
  await expect(page).toHaveURL(/\/admin\/usage\?user_id=\d+$/);
  await expect(page.getByRole('heading', { name: 'Usage' })).toBeVisible();
  await expect(page.getByText(`User: ${USER.username}`)).toBeVisible();
  await page.getByRole('tab', { name: 'By user' }).click();
  const row = page
    .getByRole('table', { name: 'By user' })
    .getByRole('row')
    .filter({ hasText: USER.username });
  await expect(row).toHaveCount(1);
  const cells = row.getByRole('cell');
  await expect(cells.nth(1)).toHaveText('2');
  const input = Number((await cells.nth(2).textContent())!.replace(/\D/g, ''));
  const output = Number((await cells.nth(3).textContent())!.replace(/\D/g, ''));
  expect(input).toBeGreaterThan(0);
  expect(output).toBeGreaterThan(0);

  const downloading = page.waitForEvent('download');
  await page.getByRole('button', { name: 'Download CSV' }).click();
  const download = await downloading;
  expect(download.suggestedFilename()).toMatch(/^usage-user-\d{4}-\d{2}-\d{2}\.csv$/);
  const lines = readFileSync(await download.path(), 'utf8')
    .replace(/^\uFEFF/, '')
    .trimEnd()
    .split('\r\n');
  expect(lines[0]).toMatch(/^user_id,username,asks,input_tokens,output_tokens,/);
  expect(lines).toHaveLength(2);
  expect(lines[1]).toMatch(new RegExp(`^\\d+,${USER.username},2,${input},${output},`));

  // The user's own usage, in the profile.
  await user.getByTestId('user-menu').click();
  await user.getByRole('menuitem', { name: 'Profile' }).click();
  const mine = user.getByTestId('my-usage');
  await expect(mine).toBeVisible();
  await expect(mine.getByTestId('my-usage-asks')).toHaveText('2');
  await expect(mine.getByTestId('my-usage-tokens')).toContainText(`${input.toLocaleString('en-US')} in`);
  await context.close();
});
