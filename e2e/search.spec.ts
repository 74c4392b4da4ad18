import { expect, test } from '@playwright/test';
import type { Page } from '@playwright/test';
import { lastRow, login, send, startConversation, useEnglish } from './helpers';

test.beforeEach(async ({ page }) => {
  await useEnglish(page);
  await login(page, '/login?redirect=/conversation');
  await expect(page).toHaveURL(/\/conversation/);
});

async function answered(page: Page, text: string): Promise<void> {
  await send(page, text);
  await expect(page.getByTestId('send-button')).toBeVisible({ timeout: 20_000 });
  await expect(page).toHaveURL(/\?id=/, { timeout: 20_000 });
}

async function searchFor(page: Page, q: string) {
  await page.getByTestId('conversation-search').fill(q);
  return page.getByTestId('search-results');
}

test('search finds an English word and a two-character Chinese word and opens the conversation at the message', async ({
  page,
}) => {
  const suffix = Date.now() % 100000;
  const word = `Quokka${suffix}`;
  const enTitle = `E2E search en ${suffix}`;
  const zhTitle = `E2E search zh ${suffix}`;

  await startConversation(page, 'OpenAI API', /^GPT-3\.5/, enTitle);
  await answered(page, `Tell me about the ${word} of Rottnest Island`);
  // Long answers after it, so the question is far above the latest message.
  await answered(page, '#long 400');
  await answered(page, '#long 400');
  const enId = new URL(page.url()).searchParams.get('id');

  await startConversation(page, 'OpenAI Web', /^GPT-3\.5/, zhTitle);
  await answered(page, `请介绍一下巴黎的博物馆 ${suffix}`);
  const zhId = new URL(page.url()).searchParams.get('id');

  // English, case-insensitive: the question and the answer that quotes it.
  const results = await searchFor(page, word.toLowerCase());
  const question = results
    .getByTestId('search-result')
    .filter({ hasText: 'Question' })
    .filter({ hasText: enTitle });
  await expect(question).toHaveCount(1);
  await expect(question.locator('mark')).toHaveText(word);
  await question.click();
  await expect(page).toHaveURL(new RegExp(`id=${enId}.*message=`));
  const focused = page.locator('[data-focused=true]');
  await expect(focused).toContainText(word);
  await expect(focused).toBeInViewport();
  // The highlight is brief.
  await expect(focused).toHaveCount(0, { timeout: 10_000 });

  // Two Chinese characters.
  const zh = (await searchFor(page, '巴黎')).getByTestId('search-result').filter({ hasText: zhTitle });
  await expect(zh.first()).toBeVisible();
  await expect(zh.first().locator('mark').first()).toHaveText('巴黎');
  await zh.filter({ hasText: 'Question' }).click();
  await expect(page).toHaveURL(new RegExp(`id=${zhId}.*message=`));
  await expect(page.locator('[data-focused=true]')).toContainText('巴黎');

  // A regenerated answer: the first one is now on another branch; its result shows that branch, at that answer.
  await page.getByTestId('conversation-search').fill('');
  const answer = lastRow(page);
  await answer.hover();
  await answer.getByTestId('regenerate-button').click();
  await expect(page.getByTestId('send-button')).toBeVisible({ timeout: 20_000 });
  await expect(lastRow(page).getByTestId('branch-position')).toHaveText('2 / 2');
  const answers = (await searchFor(page, '巴黎'))
    .getByTestId('search-result')
    .filter({ hasText: zhTitle })
    .filter({ hasText: 'Answer' });
  await expect(answers).toHaveCount(2);
  // Newest first: the last one is the first answer.
  await answers.last().click();
  const first = page.locator('[data-focused=true]');
  await expect(first).toContainText('巴黎');
  await expect(first.getByTestId('branch-position')).toHaveText('1 / 2');

  // Nothing found: an empty state, not an error.
  await expect(
    (await searchFor(page, `nothing-like-this-${suffix}`)).getByTestId('search-empty'),
  ).toBeVisible();
  await page.getByTestId('conversation-search').fill('');
  await expect(page.getByTestId('conversation-list')).toContainText(zhTitle);
});
