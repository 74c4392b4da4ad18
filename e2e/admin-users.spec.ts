import { randomUUID } from 'node:crypto';
import { expect, test } from '@playwright/test';
import type { Page } from '@playwright/test';
import { e2eDatabase, login, registerUser, startConversation, useEnglish } from './helpers';

const suffix = Date.now() % 100000;
const USER = { username: `quota${suffix}`, nickname: `Quota ${suffix}`, password: 'quota-pass-123' };

async function loginAs(page: Page, username: string, password: string) {
  await page.goto('/login?redirect=/conversation');
  await page.getByLabel('Username').fill(username);
  await page.getByLabel('Password', { exact: true }).fill(password);
  await page.getByRole('button', { name: 'Log in' }).click();
  await expect(page.getByTestId('user-menu')).toBeVisible();
}

test('an admin creates a user, sets a quota of 0 asks, and the chat enforces it', async ({
  page,
  browser,
}) => {
  await useEnglish(page);
  await login(page);
  await page.goto('/admin/user');
  await expect(page.getByRole('heading', { name: 'User management' })).toBeVisible();

  // Create: the SPEC §5 messages first, then a valid user.
  await page.getByRole('button', { name: 'Add user' }).click();
  const drawer = page.getByRole('dialog', { name: 'Create user' });
  await drawer.getByRole('button', { name: 'Create' }).click();
  await expect(drawer.getByText('Please enter the username')).toBeVisible();
  await drawer.getByLabel('Username').fill(USER.username);
  await drawer.getByLabel('Nickname').fill(USER.nickname);
  await drawer.getByLabel('Email').fill('not-an-email');
  await drawer.getByLabel(/^Password/).fill('short');
  await drawer.getByRole('button', { name: 'Create' }).click();
  await expect(drawer.getByText('Invalid email', { exact: false })).toBeVisible();
  await drawer.getByLabel('Email').fill(`${USER.username}@example.com`);
  await drawer.getByLabel(/^Password/).fill(USER.password);
  await drawer.getByRole('button', { name: 'Create' }).click();
  await expect(drawer).toBeHidden();

  const row = page.getByRole('row').filter({ hasText: USER.username });
  await expect(row).toBeVisible();
  await expect(row).toContainText('Never active');

  // Quota: no asks left on the web source.
  await row.getByRole('button', { name: `More actions for ${USER.username}` }).click();
  await page.getByRole('menuitem', { name: 'Quotas and permissions' }).click();
  const settings = page.getByRole('dialog', { name: `Quotas and permissions of ${USER.username}` });
  await expect(settings.getByTestId('settings-openai_web')).toBeVisible();
  const total = settings.getByRole('textbox', { name: 'Total asks left' });
  await total.fill('0');
  // A rate-limit row can be added and removed.
  await settings.getByRole('button', { name: 'Add rate limit' }).click();
  await expect(settings.getByTestId('openai_web-rate-limit')).toHaveCount(2);
  await settings.getByRole('button', { name: 'Remove row 2' }).first().click();
  await expect(settings.getByTestId('openai_web-rate-limit')).toHaveCount(1);
  await settings.getByRole('button', { name: 'Save' }).click();
  await expect(settings).toBeHidden();
  await expect(row.getByTestId('limits-openai_web')).toContainText('0 asks left');

  // The user now meets the quota in the chat.
  const context = await browser.newContext();
  const userPage = await context.newPage();
  await useEnglish(userPage);
  await loginAs(userPage, USER.username, USER.password);
  await startConversation(userPage, 'OpenAI Web', /^GPT-3\.5/);
  await userPage.getByTestId('chat-input').fill('hello');
  await expect(userPage.getByTestId('send-button')).toBeDisabled();
  await expect(userPage.getByTestId('send-notice')).toContainText('No asks left for this model');
  await context.close();

  // Delete with confirmation.
  await row.getByRole('button', { name: `More actions for ${USER.username}` }).click();
  await page.getByRole('menuitem', { name: 'Delete' }).click();
  await page.getByRole('dialog', { name: 'Delete user' }).getByRole('button', { name: 'Delete' }).click();
  await expect(page.getByRole('row').filter({ hasText: USER.username })).toHaveCount(0);
});

/** Badges of the admin tables cut short by an ellipsis ("Y…", "GPT…", "mode…"): their texts. */
const clippedBadges = (page: Page) =>
  page
    .locator('table td .mantine-Badge-label')
    .evaluateAll((labels) =>
      labels.filter((l) => l.scrollWidth > l.clientWidth + 1).map((l) => l.textContent),
    );

test('at 1280 px the user, task and conversation tables keep their actions in view and rows stay compact', async ({
  page,
  baseURL,
}) => {
  await page.setViewportSize({ width: 1280, height: 800 });
  await useEnglish(page);
  await login(page);
  // A user with the default limits (a per-model count, so the limits column has its badges).
  const compact = `compact${randomUUID().slice(0, 8)}`;
  const compactId = await registerUser(page, baseURL!, {
    username: compact,
    password: 'compact-pass-123',
  });
  // And a conversation of theirs with a long title (a model and a yes / no badge in the conversation table, whose
  // title column takes all the room it can).
  const db = e2eDatabase();
  try {
    const now = new Date().toISOString();
    db.prepare(
      `insert into conversations (conversation_id, source, title, user_id, is_valid, is_public, current_model,
         create_time, update_time) values (?, 'openai_api', ?, ?, 1, 0, 'gpt_3_5', ?, ?)`,
    ).run(randomUUID(), `Compact row ${compactId} ${'with a long title '.repeat(20)}`, compactId, now, now);
  } finally {
    db.close();
  }
  const inView = async (button: ReturnType<Page['getByRole']>) => {
    await expect(button).toBeVisible();
    const box = await button.boundingBox();
    expect(box).not.toBeNull();
    expect(box!.x).toBeGreaterThanOrEqual(0);
    expect(box!.x + box!.width).toBeLessThanOrEqual(1280);
  };

  // The admin was active 100 s ago as the page sees it: its row says "2 minutes ago", the longest
  // relative time a recent activity shows (a row was twice as tall when it wrapped). Its activity mark is set to now
  // first: the server rewrites a mark at most once a minute, so the admin's last one may be a minute old, and the
  // page's own requests would then write a new one (and the row say "1 minute ago").
  const marks = e2eDatabase();
  try {
    marks
      .prepare(`update users set last_active_time = ? where username = 'admin'`)
      .run(new Date().toISOString());
  } finally {
    marks.close();
  }
  await page.clock.setFixedTime(Date.now() + 100_000);
  await page.goto('/admin/user');
  await expect(page.getByText('2 minutes ago')).toBeVisible();
  const more = page.getByRole('button', { name: /^More actions for / }).first();
  await inView(more);
  // Nickname, username and email, status, activity, limits and remark in about one line pair per user.
  const row = page.locator('tr[data-row-id]').first();
  expect((await row.boundingBox())!.height).toBeLessThanOrEqual(64);
  // No cell's content runs into the next column (the limits of a user without limits once ran under the group).
  const overflowing = await page.locator('tr[data-row-id] td').evaluateAll((cells) =>
    cells
      .filter((cell) => {
        const right = cell.getBoundingClientRect().right;
        return [...cell.querySelectorAll('*')].some((el) => el.getBoundingClientRect().right > right + 1);
      })
      .map((cell) => cell.textContent),
  );
  expect(overflowing).toEqual([]);
  // The table fits: nothing scrolls sideways.
  const table = page.getByRole('table', { name: 'User management' });
  expect((await table.boundingBox())!.x + (await table.boundingBox())!.width).toBeLessThanOrEqual(1280);
  // Every badge whole (a status, a limit), in both languages.
  await expect(page.getByText(compact, { exact: false }).first()).toBeVisible();
  expect(await clippedBadges(page)).toEqual([]);
  await page.evaluate(() => localStorage.setItem('language', 'zh-CN'));
  await page.reload();
  await expect(page.getByRole('table', { name: '用户管理' })).toBeVisible();
  await expect(page.locator('tr[data-row-id]').first()).toBeVisible();
  expect(await clippedBadges(page)).toEqual([]);
  await page.evaluate(() => localStorage.setItem('language', 'en-US'));

  await page.goto('/admin/task');
  await inView(page.getByRole('button', { name: /^Run .+ now$/ }).first());

  await page.goto('/admin/conversation');
  const actions = page.getByRole('button', { name: /^Actions for / });
  await inView(actions.first());
  await expect(page.getByText(`Compact row ${compactId} `, { exact: false })).toBeVisible();
  expect(await clippedBadges(page)).toEqual([]);
  // Wider, the table fits without scrolling and its columns share the width: the badges' ones stay whole too.
  await page.setViewportSize({ width: 1400, height: 900 });
  await expect(page.getByText(`Compact row ${compactId} `, { exact: false })).toBeVisible();
  expect(await clippedBadges(page)).toEqual([]);
});

test('from a user’s menu, the keyboard focus comes back after the quotas dialog and moves to the next user after a delete', async ({
  page,
  baseURL,
}) => {
  await useEnglish(page);
  await login(page);
  const names = ['a', 'b', 'c'].map((n) => `keyfocus${suffix}${n}`);
  for (const username of names) await registerUser(page, baseURL!, { username, password: 'focus-pass-123' });
  await page.goto('/admin/user');
  await page.getByLabel('Search users').fill(`keyfocus${suffix}`);
  const more = (username: string) =>
    page.getByRole('button', { name: `More actions for ${username}`, exact: true });
  for (const username of names) await expect(more(username)).toBeVisible();
  // The table's order: the row after b is the next one shown, whichever way the table is sorted.
  const order = await page
    .getByRole('button', { name: /^More actions for keyfocus/ })
    .evaluateAll((buttons) =>
      buttons.map((b) => b.getAttribute('aria-label')!.replace('More actions for ', '')),
    );
  const middle = order[1]!;
  const after = order[2]!;

  await more(middle).click();
  await page.getByRole('menuitem', { name: 'Quotas and permissions' }).click();
  await expect(page.getByRole('dialog')).toBeVisible();
  await page.keyboard.press('Escape');
  await expect(page.getByRole('dialog')).toHaveCount(0);
  await expect(more(middle)).toBeFocused();

  await more(middle).click();
  await page.getByRole('menuitem', { name: 'Delete' }).click();
  await page.getByRole('dialog', { name: 'Delete user' }).getByRole('button', { name: 'Cancel' }).click();
  await expect(more(middle)).toBeFocused();
  await more(middle).click();
  await page.getByRole('menuitem', { name: 'Delete' }).click();
  await page.getByRole('dialog', { name: 'Delete user' }).getByRole('button', { name: 'Delete' }).click();
  await expect(more(middle)).toHaveCount(0);
  await expect(more(after)).toBeFocused();
});
