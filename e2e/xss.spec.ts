import { expect, test } from '@playwright/test';
import { XSS_CORPUS } from '../apps/web/src/test/xss-corpus';
import { login, useEnglish } from './helpers';

/** The sanitiser in a real browser: every corpus payload rendered through the app's markdown engine. */
test('the XSS corpus rendered as an answer executes nothing in Chromium', async ({ page }) => {
  await useEnglish(page);
  await login(page);
  const conversation = '00000000-0000-4000-8000-00000000abcd';
  const messages = XSS_CORPUS.map((text, i) => ({
    id: `00000000-0000-4000-8000-${String(i + 1).padStart(12, '0')}`,
    source: 'openai_api',
    role: i % 2 === 0 ? 'assistant' : 'user',
    children: [],
    content: { content_type: 'text', text },
    metadata: {},
  }));
  const mapping: Record<string, unknown> = {};
  messages.forEach((m, i) => {
    mapping[m.id] = {
      ...m,
      parent: messages[i - 1]?.id ?? null,
      children: messages[i + 1] ? [messages[i + 1]!.id] : [],
    };
  });
  await page.route(`**/api/conv/${conversation}`, (route) =>
    route.fulfill({
      contentType: 'application/json',
      body: JSON.stringify({
        code: 200,
        message: 'tips.requestSuccess',
        result: {
          _id: conversation,
          source: 'openai_api',
          title: 'XSS corpus',
          create_time: null,
          update_time: null,
          mapping,
          current_node: messages[messages.length - 1]!.id,
          current_model: 'gpt_3_5',
        },
      }),
    }),
  );
  await page.addInitScript(() => {
    localStorage.setItem('preference', JSON.stringify({ renderUserMessageInMd: true }));
  });
  await page.goto(`/conv/${conversation}`);
  const list = page.getByTestId('message-list');
  await expect(list).toBeVisible();
  // Scroll through every row so each one renders.
  for (let i = 0; i < 20; i++) {
    await list.evaluate((el, step) => el.scrollTo(0, step * 400), i);
    await page.waitForTimeout(100);
  }
  await page.waitForTimeout(500);
  expect(await page.evaluate(() => (window as unknown as { __xss?: unknown }).__xss)).toBeUndefined();
  expect(
    await page.locator('[data-testid=message-list] script, [data-testid=message-list] iframe').count(),
  ).toBe(0);
});
