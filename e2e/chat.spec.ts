import { expect, test } from '@playwright/test';
import type { Page } from '@playwright/test';
import { lastRow, login, send, startConversation, useEnglish } from './helpers';

test.beforeEach(async ({ page }) => {
  await useEnglish(page);
  await login(page, '/login?redirect=/conversation');
  await expect(page).toHaveURL(/\/conversation/);
});

function currentId(page: Page): string {
  return new URL(page.url()).searchParams.get('id') ?? '';
}

test('a reload during an answer shows it continuing live, and stop still works', async ({ page }) => {
  await startConversation(page, 'OpenAI API', /^GPT-3\.5/, `E2E reload ${Date.now() % 100000}`);
  await send(page, 'Hello');
  await expect(page.getByTestId('send-button')).toBeVisible({ timeout: 20_000 });
  await expect(page).toHaveURL(/\?id=/);
  const id = currentId(page);

  // The upstream sends a few chunks, then pauses: the answer is still running when the page reloads.
  const answers = page.locator('[data-testid=message-list] article[data-role=assistant]');
  const answered = await answers.count();
  await send(page, '#fault:stall=4 tell me a long story');
  await expect(page.getByTestId('stop-button')).toBeVisible();
  // The new answer's first chunks are on screen (its own row, not the question's or the last answer's).
  await expect(answers).toHaveCount(answered + 1, { timeout: 20_000 });
  const answerRow = answers.nth(answered);
  const answerText = answerRow.locator('.cc-markdown, .cc-plain-text').first();
  await expect(answerText).toContainText('You asked', { timeout: 20_000 });
  // Its text as the page holds it (innerText would add the line breaks of the layout).
  const before = ((await answerText.textContent()) ?? '').replace(/\s+/g, ' ').trim();
  expect(before.length).toBeGreaterThan(0);
  await page.reload();

  await expect(page).toHaveURL(new RegExp(`id=${id}`));
  await expect(page.getByTestId('stop-button')).toBeVisible({ timeout: 20_000 });
  await expect(lastRow(page)).toContainText(before.slice(0, 20));
  await page.getByTestId('stop-button').click();
  await expect(page.getByTestId('send-button')).toBeVisible();
  await expect(page.getByTestId('ask-error')).toHaveCount(0);
  await expect(lastRow(page)).toContainText(before.slice(0, 20));
});

/**
 * The demo emulator streams as fast as it can unless told otherwise: an answer of a few hundred words can start and
 * end between two looks of a test. Paced to `tokensPerSecond` for `run`, then as fast again.
 */
async function withPacedEmulator(
  page: Page,
  tokensPerSecond: number,
  run: () => Promise<void>,
  chunkSize = 8,
) {
  const info = await page.request.get('/api/system/info');
  const emulator = ((await info.json()) as { result: { demo: { emulator_url: string } } }).result.demo
    .emulator_url;
  const pace = (tps: number, size: number) =>
    page.request.post(`${emulator}/__control/knobs`, { data: { tokensPerSecond: tps, chunkSize: size } });
  expect((await pace(tokensPerSecond, chunkSize)).ok()).toBe(true);
  try {
    await run();
  } finally {
    await pace(0, 8);
  }
}

/**
 * A turn of the mouse wheel up over the message list, as the browser delivers it: the wheel event, then the scroll
 * (here to the top); its scroll event comes with the next frame. With `type`, the reader types the next question
 * at once: the page renders before the browser reports the scroll.
 */
async function wheelToTop(page: Page, type = false) {
  await page.getByTestId('message-list').evaluate((el, typeToo) => {
    el.dispatchEvent(new WheelEvent('wheel', { deltaY: -5000, bubbles: true }));
    el.scrollTo({ top: 0 });
    if (!typeToo) return;
    const input = document.querySelector<HTMLTextAreaElement>('[data-testid=chat-input]');
    if (!input) throw new Error('no chat input');
    Object.getOwnPropertyDescriptor(HTMLTextAreaElement.prototype, 'value')?.set?.call(input, 'n');
    input.dispatchEvent(new Event('input', { bubbles: true }));
  }, type);
}

/** Sends a question whose answer (about 1,200 tokens) streams until the list is more than twice its view's height. */
async function sendLongQuestion(page: Page) {
  const list = page.getByTestId('message-list');
  await send(page, '#long 900 a long answer');
  await expect(page.getByTestId('stop-button')).toBeVisible();
  await expect
    .poll(() => list.evaluate((el) => el.scrollHeight > 2 * el.clientHeight), { timeout: 20_000 })
    .toBe(true);
}

test('a long answer is followed to its end while it streams, and scrolling up stops following', async ({
  page,
}) => {
  await page.setViewportSize({ width: 1280, height: 600 });
  await startConversation(page, 'OpenAI API', /^GPT-3\.5/, `E2E follow ${Date.now() % 100000}`);
  const list = page.getByTestId('message-list');
  const gap = () => list.evaluate((el) => el.scrollHeight - el.scrollTop - el.clientHeight);
  // About 1,200 tokens an answer, at 300 a second: streaming for about four seconds.
  await withPacedEmulator(page, 300, async () => {
    await sendLongQuestion(page);
    // Kept at the bottom while it streams.
    await expect.poll(gap).toBeLessThan(2);
    // Not only eventually: read again and again while it streams, it is at the bottom every time (the list follows
    // the growing row in the frame it grows, not a frame or two later).
    const reads: number[] = [];
    while (await page.getByTestId('stop-button').isVisible()) reads.push(await gap());
    expect(reads.length).toBeGreaterThan(5);
    expect(reads.filter((g) => g >= 2)).toEqual([]);
    await expect(page.getByTestId('send-button')).toBeVisible({ timeout: 30_000 });
    await expect.poll(gap).toBeLessThan(2);
    await expect(page.getByRole('button', { name: 'Jump to the latest message' })).toHaveCount(0);

    // Scrolled up: the next answer does not pull the reader down; the button brings them back.
    await send(page, '#long 600 another one');
    await expect(page.getByTestId('stop-button')).toBeVisible();
    await wheelToTop(page);
    await expect(page.getByRole('button', { name: 'Jump to the latest message' })).toBeVisible();
    await expect(page.getByTestId('send-button')).toBeVisible({ timeout: 30_000 });
    expect(await list.evaluate((el) => el.scrollTop)).toBeLessThan(50);
    await page.getByRole('button', { name: 'Jump to the latest message' }).click();
    await expect.poll(gap).toBeLessThan(2);
  });
});

test('a fast answer in an opened conversation is followed to its end', async ({ page }) => {
  await page.setViewportSize({ width: 1280, height: 900 });
  await startConversation(page, 'OpenAI API', /^GPT-3\.5/, `E2E fast follow ${Date.now() % 100000}`);
  const list = page.getByTestId('message-list');
  const gap = () => list.evaluate((el) => el.scrollHeight - el.scrollTop - el.clientHeight);
  // An earlier answer whose height its text does not tell (code, a formula): the list's estimate of it is off.
  await send(page, 'Hello there, please answer with markdown');
  await expect(page.getByTestId('send-button')).toBeVisible({ timeout: 20_000 });
  await expect(page).toHaveURL(/\?id=/);
  await page.reload();
  await expect(lastRow(page)).toContainText('You asked');
  // 200 chunks a second: new rows, then an answer that grows by screens while the list still follows the new rows
  // (the content shrinks and grows again between frames: that is not the reader scrolling up).
  await withPacedEmulator(
    page,
    1000,
    async () => {
      await send(page, '#long 2950 a fast long answer');
      await expect(page.getByTestId('stop-button')).toBeVisible();
      // Following all along: whenever it is read while the answer streams, at most a frame's growth from the
      // bottom (a list that stopped following falls behind by screens a second).
      const reads: number[] = [];
      while (await page.getByTestId('stop-button').isVisible()) reads.push(await gap());
      expect(reads.length).toBeGreaterThan(5);
      expect(reads.filter((g) => g >= 100)).toEqual([]);
      await expect(page.getByTestId('send-button')).toBeVisible({ timeout: 30_000 });
    },
    20,
  );
  await expect.poll(gap).toBeLessThan(2);
  await expect(page.getByRole('button', { name: 'Jump to the latest message' })).toHaveCount(0);
});

test('a scroll up is kept when the page renders before the browser reports it', async ({ page }) => {
  await page.setViewportSize({ width: 1280, height: 600 });
  await startConversation(page, 'OpenAI API', /^GPT-3\.5/, `E2E scroll race ${Date.now() % 100000}`);
  const list = page.getByTestId('message-list');
  await withPacedEmulator(page, 300, async () => {
    await sendLongQuestion(page);
    // The reader turns the wheel up and, before the next frame (when the browser tells the list of the scroll), the
    // page renders. The list must not take the render as a reason to go back down.
    await wheelToTop(page, true);
    await expect(page.getByRole('button', { name: 'Jump to the latest message' })).toBeVisible();
    // The first answer of a new conversation: when it ends, the draft becomes the conversation (and the address
    // changes) without the list being replaced or sent to the bottom.
    await expect(page.getByTestId('send-button')).toBeVisible({ timeout: 30_000 });
    await expect(page).toHaveURL(/\?id=/);
    expect(await list.evaluate((el) => el.scrollTop)).toBeLessThan(50);
  });
});

for (const [source, model] of [
  ['OpenAI Web', /^GPT-3\.5/],
  ['OpenAI API', /^GPT-3\.5/],
] as const) {
  test(`a full chat on ${source}: stream, stop, list, rename, delete`, async ({ page }) => {
    const title = `E2E ${source} ${Date.now() % 100000}`;
    await startConversation(page, source, model, title);
    await expect(page.getByTestId('draft-item')).toContainText(title);

    // Send with Enter; the answer streams in.
    await send(page, 'Hello there, please answer with markdown');
    await expect(lastRow(page)).toContainText('You asked', { timeout: 20_000 });
    await expect(page.getByTestId('send-button')).toBeVisible({ timeout: 20_000 });
    await expect(page).toHaveURL(/\?id=/);
    const id = currentId(page);
    const item = page.locator(`[data-conversation-id="${id}"]`);
    await expect(item).toBeVisible();
    await expect(item).toContainText(title);
    await expect(lastRow(page).locator('pre code').first()).toBeVisible();
    await expect(lastRow(page).locator('.katex').first()).toBeVisible();

    // Stop: the answer stalls upstream after a few chunks; stopping keeps what arrived.
    await send(page, '#fault:stall=4 tell me a long story');
    await expect(page.getByTestId('stop-button')).toBeVisible();
    await expect(lastRow(page)).not.toHaveText('', { timeout: 20_000 });
    await expect(lastRow(page).locator('.cc-markdown, .cc-plain-text').first()).toBeVisible({
      timeout: 20_000,
    });
    await page.getByTestId('stop-button').click();
    await expect(page.getByTestId('send-button')).toBeVisible();
    await expect(page.getByTestId('ask-error')).toHaveCount(0);

    // Rename from the item menu.
    await item.locator('..').getByTestId('conversation-menu').click();
    await page.getByRole('menuitem', { name: 'Rename' }).click();
    await page.getByTestId('rename-input').fill(`${title} renamed`);
    await page.getByRole('dialog').getByRole('button', { name: 'Confirm' }).click();
    await expect(item).toContainText(`${title} renamed`);
    await expect(page.getByTestId('conversation-title')).toHaveText(`${title} renamed`);

    // Delete.
    await item.locator('..').getByTestId('conversation-menu').click();
    await page.getByRole('menuitem', { name: 'Delete' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Delete' }).click();
    await expect(page.getByText('Conversation deleted')).toBeVisible();
    await expect(page.locator(`[data-conversation-id="${id}"]`)).toHaveCount(0);
    await expect(page).not.toHaveURL(new RegExp(id));
  });
}

test('an upstream error is shown in words and can be withdrawn', async ({ page }) => {
  await startConversation(page, 'OpenAI API', /^GPT-3\.5/);
  await send(page, '#fault:status=429 hi');
  const error = page.getByTestId('ask-error');
  await expect(error).toBeVisible({ timeout: 20_000 });
  await expect(error).toContainText(/429|limit|upstream|error/i);
  await error.getByRole('button', { name: 'Withdraw message' }).click();
  await expect(error).toHaveCount(0);
});

test('a cut answer can be continued', async ({ page }) => {
  await startConversation(page, 'OpenAI Web', /^GPT-3\.5/);
  await send(page, '#length');
  const cont = page.getByTestId('continue-button');
  await expect(cont).toBeVisible({ timeout: 20_000 });
  await cont.click();
  await expect(lastRow(page)).toContainText('finishes normally', { timeout: 20_000 });
  await expect(cont).toHaveCount(0);
});

test('the history viewer shows a conversation and exports it as Markdown', async ({ page }) => {
  await startConversation(page, 'OpenAI Web', /^GPT-3\.5/, 'History check');
  await send(page, 'Remember the word pineapple');
  await expect(page.getByTestId('send-button')).toBeVisible({ timeout: 20_000 });
  await expect(page).toHaveURL(/\?id=/);
  const id = currentId(page);
  await page.goto(`/conv/${id}`);
  const viewer = page.getByTestId('history-viewer');
  await expect(viewer).toBeVisible();
  await expect(viewer.getByTestId('conversation-title')).toHaveText('History check');
  await expect(viewer.locator('article')).toHaveCount(2);
  await expect(viewer).toContainText('Remember the word pineapple');
  const download = page.waitForEvent('download');
  await viewer.getByTestId('export-markdown').click();
  const file = await download;
  expect(file.suggestedFilename()).toBe('History check.md');
  const text = await (await file.createReadStream()).toArray();
  expect(Buffer.concat(text).toString()).toContain('# History check');

  await page.goto('/conv/00000000-0000-4000-8000-000000000000');
  await expect(page).toHaveURL(/\/error\/404$/);
});

test('model output and user text never execute HTML or scripts', async ({ page }) => {
  await page.addInitScript(() => {
    (window as unknown as { __xss?: number }).__xss = undefined;
  });
  await page.evaluate(() => {
    localStorage.setItem(
      'preference',
      JSON.stringify({
        sendKey: 'Enter',
        renderUserMessageInMd: true,
        codeAutoWrap: false,
        widerConversationPage: true,
      }),
    );
  });
  await page.reload();
  await startConversation(page, 'OpenAI API', /^GPT-3\.5/);
  const payload =
    'markdown <img src=x onerror="window.__xss=1"> <script>window.__xss=2</script> <svg onload="window.__xss=3"></svg> [x](javascript:window.__xss=4)';
  await send(page, payload);
  await expect(page.getByTestId('send-button')).toBeVisible({ timeout: 20_000 });
  await expect(lastRow(page)).toContainText('You asked');
  await page.waitForTimeout(500);
  for (const link of await page.locator('[data-testid=message-list] a').all()) {
    await link.click({ modifiers: ['Control'] }).catch(() => undefined);
  }
  expect(await page.evaluate(() => (window as unknown as { __xss?: number }).__xss)).toBeUndefined();
  expect(await page.locator('[data-testid=message-list] script').count()).toBe(0);
  expect(
    await page.locator('[data-testid=message-list] [onerror], [data-testid=message-list] [onload]').count(),
  ).toBe(0);
});

for (const source of ['OpenAI Web', 'OpenAI API'] as const) {
  test(`regenerate, edit and switch between versions on ${source}`, async ({ page }) => {
    await startConversation(page, source, /^GPT-3\.5/, `E2E branches ${Date.now() % 100000}`);
    await send(page, 'Tell me about apples');
    await expect(page.getByTestId('send-button')).toBeVisible({ timeout: 20_000 });
    await expect(page).toHaveURL(/\?id=/);
    const answer = lastRow(page);
    await expect(answer).toContainText('apples', { timeout: 20_000 });

    // Regenerate: a second answer beside the first; the switcher shows 2 / 2 and goes back to 1 / 2.
    await answer.hover();
    await answer.getByTestId('regenerate-button').click();
    await expect(page.getByTestId('send-button')).toBeVisible({ timeout: 20_000 });
    await expect(lastRow(page).getByTestId('branch-position')).toHaveText('2 / 2');
    await lastRow(page).getByRole('button', { name: 'Previous version' }).click();
    await expect(lastRow(page).getByTestId('branch-position')).toHaveText('1 / 2');

    // The choice is kept: after a reload the first answer is still the one shown.
    await page.reload();
    await expect(lastRow(page).getByTestId('branch-position')).toHaveText('1 / 2', { timeout: 20_000 });

    // Edit the question: a new question beside it, with its own answer.
    const question = page.locator('[data-testid=message-list] article[data-role=user]').last();
    await question.hover();
    await question.getByTestId('edit-button').click();
    await question.getByRole('textbox').fill('Tell me about pears');
    await question.getByTestId('edit-submit').click();
    await expect(page.getByTestId('send-button')).toBeVisible({ timeout: 20_000 });
    await expect(lastRow(page)).toContainText('pears', { timeout: 20_000 });
    const edited = page.locator('[data-testid=message-list] article[data-role=user]').last();
    await expect(edited).toContainText('Tell me about pears');
    await expect(edited.getByTestId('branch-position')).toHaveText('2 / 2');
    await edited.getByRole('button', { name: 'Previous version' }).click();
    await expect(page.locator('[data-testid=message-list] article[data-role=user]').last()).toContainText(
      'Tell me about apples',
    );
  });
}
