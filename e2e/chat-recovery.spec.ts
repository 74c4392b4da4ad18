import AxeBuilder from '@axe-core/playwright';
import { expect, test } from '@playwright/test';
import type { Page } from '@playwright/test';
import { lastRow, login, send, startConversation, useEnglish } from './helpers';

test.beforeEach(async ({ page }) => {
  await useEnglish(page);
  await login(page, '/login?redirect=/conversation');
  await expect(page).toHaveURL(/\/conversation/);
});

// An answer a failed test left running (stalled upstream) would be the user's answer in flight in the next test.
test.afterEach(async ({ page }) => {
  const stop = page.getByTestId('stop-button');
  if (await stop.isVisible().catch(() => false)) await stop.click();
});

const answers = (page: Page) => page.locator('[data-testid=message-list] article[data-role=assistant]');

test('a regenerated answer resumed after a reload is shown alone, not merged with a stored copy', async ({
  page,
}) => {
  await startConversation(page, 'OpenAI Web', /^GPT-3\.5/, `E2E regenerate reload ${Date.now() % 100000}`);
  // The upstream sends a few chunks, then pauses: the answer runs until it is stopped.
  await send(page, 'again #fault:stall=5 #long 30');
  await expect(page.getByTestId('stop-button')).toBeVisible();
  await expect(lastRow(page)).toContainText('You asked', { timeout: 20_000 });
  await page.getByTestId('stop-button').click();
  await expect(page.getByTestId('send-button')).toBeVisible();
  await expect(page.getByTestId('ask-error')).toHaveCount(0);

  const answer = lastRow(page);
  await answer.hover();
  await answer.getByTestId('regenerate-button').click();
  await expect(page.getByTestId('stop-button')).toBeVisible();
  await expect(lastRow(page)).toContainText('You asked', { timeout: 20_000 });
  // The server writes a running answer about once a second (and makes it the conversation's current node): the
  // reload comes after that write.
  await page.waitForTimeout(2_000);
  await page.reload();

  await expect(page.getByTestId('stop-button')).toBeVisible({ timeout: 20_000 });
  await expect(lastRow(page)).toContainText('You asked', { timeout: 20_000 });
  await expect(lastRow(page).getByTestId('branch-position')).toHaveText('2 / 2');
  // One answer, with its text once: neither the stored copy of the same answer nor the first version beside it.
  await expect(answers(page)).toHaveCount(1);
  const text = (await lastRow(page).locator('.cc-markdown, .cc-plain-text').allTextContents()).join('\n');
  expect(text.split('You asked').length - 1).toBe(1);

  await page.getByTestId('stop-button').click();
  await expect(page.getByTestId('send-button')).toBeVisible();
  await expect(answers(page)).toHaveCount(1);
  await expect(lastRow(page).getByTestId('branch-position')).toHaveText('2 / 2');
});

test('a question asked after the session expired opens the login-expired dialog, and only that', async ({
  page,
  context,
}) => {
  await startConversation(page, 'OpenAI API', /^GPT-3\.5/, `E2E expired ${Date.now() % 100000}`);
  await send(page, 'Hello');
  await expect(page.getByTestId('send-button')).toBeVisible({ timeout: 20_000 });
  await expect(lastRow(page)).toContainText('You asked', { timeout: 20_000 });
  await expect(page).toHaveURL(/\?id=/);

  // The session ends at the server's side (the page still believes it is logged in).
  await context.clearCookies();
  await send(page, 'Are you still there?');

  const dialog = page.getByRole('dialog', { name: 'Login expired' });
  await expect(dialog).toBeVisible({ timeout: 20_000 });
  await expect(dialog.getByRole('button', { name: 'Stay on this page' })).toBeVisible();
  await page.waitForTimeout(1_000);
  await expect(page.getByTestId('ask-error')).toHaveCount(0);
  await expect(page.getByText(/1008/)).toHaveCount(0);
  await expect(page.locator('.mantine-Notification-root')).toHaveCount(0);
  // The question was not asked: its text is back in the box.
  await expect(page.getByTestId('chat-input')).toHaveValue('Are you still there?');
});

for (const source of ['OpenAI API', 'OpenAI Web'] as const) {
  test(`a stopped answer (${source}) is marked incomplete, not while it streams, and still after a reload`, async ({
    page,
  }) => {
    test.setTimeout(90_000);
    const incomplete = (row: ReturnType<typeof lastRow>) => row.getByTestId('answer-incomplete');
    await startConversation(page, source, /^GPT-3\.5/, `E2E incomplete ${Date.now() % 100000}`);
    await send(page, 'Hello');
    await expect(page.getByTestId('send-button')).toBeVisible({ timeout: 20_000 });
    await expect(lastRow(page)).toContainText('You asked', { timeout: 20_000 });
    await expect(page).toHaveURL(/\?id=/);
    // Answered in full: nothing said.
    await expect(page.getByTestId('answer-incomplete')).toHaveCount(0);

    // The upstream sends a few chunks, then pauses: the answer runs until it is stopped.
    await send(page, 'Tell me more #fault:stall=6');
    await expect(page.getByTestId('stop-button')).toBeVisible();
    await expect(lastRow(page)).toContainText('You', { timeout: 20_000 });
    await expect(answers(page)).toHaveCount(2);
    await expect(page.getByTestId('answer-incomplete')).toHaveCount(0);

    await page.getByTestId('stop-button').click();
    await expect(page.getByTestId('send-button')).toBeVisible();
    await expect(incomplete(lastRow(page))).toHaveText('Answer incomplete (stopped or cut off)');
    await expect(page.getByTestId('answer-incomplete')).toHaveCount(1);

    // Read again from the server, in the dark theme: still marked, still only that answer; no serious axe finding.
    await page.evaluate(() => localStorage.setItem('theme', 'dark'));
    await page.reload();
    await expect(page.locator('html')).toHaveAttribute('data-mantine-color-scheme', 'dark');
    await expect(incomplete(lastRow(page))).toHaveText('Answer incomplete (stopped or cut off)', {
      timeout: 20_000,
    });
    await expect(page.getByTestId('answer-incomplete')).toHaveCount(1);
    for (const theme of ['dark', 'light']) {
      if (theme === 'light') {
        await page.evaluate(() => localStorage.setItem('theme', 'light'));
        await page.reload();
        await expect(incomplete(lastRow(page))).toBeVisible({ timeout: 20_000 });
      }
      const results = await new AxeBuilder({ page })
        .include('[data-testid=message-list]')
        .withTags(['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'])
        .analyze();
      const blocking = results.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
      expect(
        blocking.map((v) => `${theme}: ${v.id} ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`),
      ).toEqual([]);
    }
  });
}

test('an edited first question stopped mid-answer shows as its own version, not as a follow-up', async ({
  page,
}) => {
  await startConversation(page, 'OpenAI API', /^GPT-3\.5/, `E2E edit stop ${Date.now() % 100000}`);
  await send(page, 'Question one');
  await expect(page.getByTestId('send-button')).toBeVisible({ timeout: 20_000 });
  await expect(page).toHaveURL(/\?id=/);
  await expect(lastRow(page)).toContainText('Question one', { timeout: 20_000 });

  const questions = page.locator('[data-testid=message-list] article[data-role=user]');
  await questions.last().hover();
  await questions.last().getByTestId('edit-button').click();
  await questions.last().getByRole('textbox').fill('Question edited #fault:stall=6');
  await questions.last().getByTestId('edit-submit').click();
  await expect(page.getByTestId('stop-button')).toBeVisible();
  await expect(lastRow(page)).toContainText('You', { timeout: 20_000 });
  await page.getByTestId('stop-button').click();
  await expect(page.getByTestId('send-button')).toBeVisible();

  // The edited question replaces the first one on screen (version 2 of 2), with its stopped answer under it.
  await expect(questions).toHaveCount(1);
  await expect(questions.last()).toContainText('Question edited');
  await expect(questions.last().getByTestId('branch-position')).toHaveText('2 / 2');
  await expect(answers(page)).toHaveCount(1);
  await expect(lastRow(page).getByTestId('answer-incomplete')).toBeVisible();
});
