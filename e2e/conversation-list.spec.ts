import { randomUUID } from 'node:crypto';
import AxeBuilder from '@axe-core/playwright';
import { expect, test } from '@playwright/test';
import type { Page } from '@playwright/test';
import { e2eDatabase, login, loginAs, registerUser, useEnglish } from './helpers';

const suffix = Date.now() % 100000;
const DAY = 86_400_000;

interface Seed {
  title: string;
  source: 'openai_web' | 'openai_api';
  model: string;
  /** Last update. */
  time: Date;
  pinned?: boolean;
}

/** Conversations of a user, written straight into the database (their times are in the past). */
function seed(userId: number, conversations: Seed[]): void {
  const db = e2eDatabase();
  try {
    const insert = db.prepare(
      `insert into conversations (conversation_id, source, title, user_id, is_valid, is_public, current_model,
         create_time, update_time, pinned_at) values (?, ?, ?, ?, 1, 0, ?, ?, ?, ?)`,
    );
    db.transaction(() => {
      for (const c of conversations) {
        const time = c.time.toISOString();
        insert.run(randomUUID(), c.source, c.title, userId, c.model, time, time, c.pinned ? time : null);
      }
    })();
  } finally {
    db.close();
  }
}

/** A new user with the given conversations, logged in on `page` (the admin registers them first). */
async function userWith(page: Page, baseURL: string, name: string, conversations: Seed[]): Promise<void> {
  await useEnglish(page);
  await login(page);
  const user = { username: `${name}${suffix}`, password: 'list-pass-123' };
  seed(await registerUser(page, baseURL, user), conversations);
  await page.context().clearCookies();
  await loginAs(page, user);
  await page.goto('/conversation');
}

const section = (page: Page, name: string) =>
  page.getByTestId('conversation-list').getByRole('region', { name, exact: true });
const row = (page: Page, title: string) =>
  page.getByTestId('conversation-list').getByRole('listitem').filter({ hasText: title });

/** Scrolls the list to its end until the conversation titled `title` has loaded. */
async function scrollUntil(page: Page, title: string): Promise<void> {
  const rows = page.locator('[data-conversation-id]');
  await expect(async () => {
    await rows.last().scrollIntoViewIfNeeded();
    await expect(row(page, title)).toHaveCount(1, { timeout: 1000 });
  }).toPass({ timeout: 30_000 });
  await row(page, title).scrollIntoViewIfNeeded();
}

test('the list groups by date, shows each model, and keeps a pinned conversation on top across reloads', async ({
  page,
  baseURL,
}) => {
  // Noon of days before today, in this machine's zone (the browser's too).
  const midnight = new Date();
  midnight.setHours(0, 0, 0, 0);
  const daysAgo = (n: number) => new Date(midnight.getTime() - n * DAY + DAY / 2);
  const old = daysAgo(90);
  await userWith(page, baseURL!, 'lister', [
    { title: 'Fresh today', source: 'openai_api', model: 'gpt_4', time: new Date(Date.now() - 1000) },
    { title: 'From yesterday', source: 'openai_web', model: 'gpt_4_browsing', time: daysAgo(1) },
    { title: 'Three days back', source: 'openai_web', model: 'gpt_4_dalle', time: daysAgo(3) },
    { title: 'Three weeks back', source: 'openai_api', model: 'gpt_3_5', time: daysAgo(21) },
    { title: 'A season ago', source: 'openai_web', model: 'gpt_4_plugins', time: old },
  ]);
  const month = new Intl.DateTimeFormat('en-US', { year: 'numeric', month: 'long' }).format(old);

  for (const [name, title] of [
    ['Today', 'Fresh today'],
    ['Yesterday', 'From yesterday'],
    ['Previous 7 days', 'Three days back'],
    ['Previous 30 days', 'Three weeks back'],
    [month, 'A season ago'],
  ] as const) {
    await expect(section(page, name).getByRole('heading', { name, exact: true })).toBeVisible();
    await expect(section(page, name).getByRole('listitem')).toHaveText([title]);
  }
  await expect(section(page, 'Pinned')).toHaveCount(0);

  // Sections, rows, icons and menus pass the accessibility rules (WCAG 2.1 A/AA: serious or critical).
  const axe = await new AxeBuilder({ page })
    .include('.cc-sidebar')
    .withTags(['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'])
    .analyze();
  expect(
    axe.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => v.id),
  ).toEqual([]);

  // Model icons: named after the model and the source, with a tooltip of the same.
  const browsing = row(page, 'From yesterday').getByRole('img', { name: 'GPT-4 (Browsing) · OpenAI Web' });
  await expect(browsing).toBeVisible();
  await expect(browsing).toHaveAttribute('title', 'GPT-4 (Browsing) · OpenAI Web');
  await expect(row(page, 'Fresh today').getByRole('img', { name: 'GPT-4 · OpenAI API' })).toBeVisible();
  await expect(
    row(page, 'A season ago').getByRole('img', { name: 'GPT-4 (Plugins) · OpenAI Web' }),
  ).toBeVisible();

  // Pin the oldest one: it moves to Pinned, first, and stays there after a reload.
  await page.getByRole('button', { name: 'Actions for A season ago' }).click();
  await page.getByRole('menuitem', { name: 'Pin', exact: true }).click();
  await expect(section(page, 'Pinned').getByRole('listitem')).toHaveText(['A season ago']);
  await expect(section(page, month)).toHaveCount(0);
  const headings = page.getByTestId('conversation-list').getByRole('heading');
  await expect(headings.first()).toHaveText('Pinned');
  await page.reload();
  await expect(section(page, 'Pinned').getByRole('listitem')).toHaveText(['A season ago']);
  await expect(headings.first()).toHaveText('Pinned');

  // Unpinned, it goes back to its month.
  await page.getByRole('button', { name: 'Actions for A season ago' }).click();
  await page.getByRole('menuitem', { name: 'Unpin', exact: true }).click();
  await expect(section(page, month).getByRole('listitem')).toHaveText(['A season ago']);
  await expect(section(page, 'Pinned')).toHaveCount(0);
});

test('a long list loads more as it is scrolled', async ({ page, baseURL }) => {
  const now = Date.now();
  const conversations: Seed[] = Array.from({ length: 300 }, (_, i) => ({
    title: `Long list ${String(i + 1).padStart(3, '0')}`,
    source: i % 2 ? 'openai_api' : 'openai_web',
    model: i % 3 ? 'gpt_3_5' : 'gpt_4',
    time: new Date(now - i * 3 * 3_600_000),
  }));
  await userWith(page, baseURL!, 'scroller', conversations);

  const rows = page.locator('[data-conversation-id]');
  await expect(rows.first()).toContainText('Long list 001');
  // One page first, not the whole list.
  await expect(rows).toHaveCount(50);
  const last = row(page, 'Long list 300');
  await expect(last).toHaveCount(0);
  // Scroll the list to its end until the last conversation has loaded.
  await scrollUntil(page, 'Long list 300');
  await expect(rows).toHaveCount(300);
  await expect(last).toBeInViewport();
  // Each once, in order (newest first).
  const titles = await rows.allTextContents();
  expect(titles.map((t) => t.match(/Long list \d+/)?.[0])).toEqual(conversations.map((c) => c.title));
  await expect(page.getByTestId('load-more-conversations')).toHaveCount(0);
});

test('a 51st pin is refused with the reason, and the list stays as it was', async ({ page, baseURL }) => {
  const now = Date.now();
  await userWith(page, baseURL!, 'pinner', [
    ...Array.from({ length: 50 }, (_, i) => ({
      title: `Pinned ${i + 1}`,
      source: 'openai_api' as const,
      model: 'gpt_3_5',
      time: new Date(now - (i + 1) * 60_000),
      pinned: true,
    })),
    { title: 'One more', source: 'openai_api', model: 'gpt_3_5', time: new Date(now) },
  ]);
  // The 50 pinned fill the first page; the unpinned one comes after them.
  await expect(section(page, 'Pinned').getByRole('listitem')).toHaveCount(50);
  await scrollUntil(page, 'One more');
  await page.getByRole('button', { name: 'Actions for One more' }).click();
  await page.getByRole('menuitem', { name: 'Pin', exact: true }).click();
  await expect(page.getByText('You can pin at most 50 conversations: unpin one first')).toBeVisible();
  await expect(section(page, 'Today').getByRole('listitem')).toHaveText(['One more']);
});

test('from a row’s menu, the keyboard focus comes back to the row after rename and sharing, and moves to the next row after a delete', async ({
  page,
  baseURL,
}) => {
  const now = Date.now();
  await userWith(
    page,
    baseURL!,
    'focuser',
    ['Focus one', 'Focus two', 'Focus three'].map((title, i) => ({
      title,
      source: 'openai_api',
      model: 'gpt_3_5',
      time: new Date(now - (i + 1) * 60_000),
    })),
  );
  const actions = (title: string) => page.getByRole('button', { name: `Actions for ${title}`, exact: true });
  await expect(actions('Focus three')).toBeVisible();

  await actions('Focus two').click();
  await page.getByRole('menuitem', { name: 'Rename' }).click();
  await page.getByTestId('rename-input').fill('Focus two renamed');
  await page.getByTestId('rename-input').press('Enter');
  await expect(actions('Focus two renamed')).toBeFocused();

  await actions('Focus two renamed').press('Enter');
  await page.getByRole('menuitem', { name: 'Share' }).click();
  await expect(page.getByRole('dialog')).toBeVisible();
  await page.keyboard.press('Escape');
  await expect(page.getByRole('dialog')).toHaveCount(0);
  await expect(actions('Focus two renamed')).toBeFocused();

  // Cancelled: back to the row; deleted: on to the next row (the last one: to the row before).
  await actions('Focus one').click();
  await page.getByRole('menuitem', { name: 'Delete' }).click();
  await page.getByRole('button', { name: 'Cancel' }).click();
  await expect(actions('Focus one')).toBeFocused();
  await actions('Focus one').click();
  await page.getByRole('menuitem', { name: 'Delete' }).click();
  await page.getByTestId('confirm-delete').click();
  await expect(row(page, 'Focus one')).toHaveCount(0);
  await expect(actions('Focus two renamed')).toBeFocused();
  await actions('Focus three').click();
  await page.getByRole('menuitem', { name: 'Delete' }).click();
  await page.getByTestId('confirm-delete').click();
  await expect(row(page, 'Focus three')).toHaveCount(0);
  await expect(actions('Focus two renamed')).toBeFocused();
});
