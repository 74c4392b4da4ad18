import { expect, test } from '@playwright/test';
import type { Locator, Page } from '@playwright/test';
import { ADMIN, login, send, startConversation, useEnglish } from './helpers';

/** The direction the browser lays an element's text out in, and where its lines start. */
const layout = (locator: Locator) =>
  locator.evaluate((element) => {
    const style = getComputedStyle(element);
    return { direction: style.direction, textAlign: style.textAlign };
  });

const ARABIC = 'ما هو الطقس اليوم؟ (سؤال مهم!)';

/** Logs in with the page in Chinese (the default language). */
async function loginInChinese(page: Page, target: string): Promise<void> {
  await page.goto(`/login?redirect=${encodeURIComponent(target)}`);
  await page.getByLabel('用户名').fill(ADMIN.username);
  await page.getByLabel('密码', { exact: true }).fill(ADMIN.password);
  await page.getByRole('button', { name: '登录' }).click();
  await expect(page.getByTestId('user-menu')).toBeVisible({ timeout: 30_000 });
}

test('a right-to-left question and its title read right to left', async ({ page }) => {
  await useEnglish(page);
  await login(page, '/login?redirect=/conversation');
  const title = `طقس ${Date.now() % 100000}`;
  await startConversation(page, 'OpenAI API', /^GPT-3\.5/, title);
  await send(page, ARABIC);
  await expect(page.getByTestId('send-button')).toBeVisible({ timeout: 20_000 });

  const question = page.locator('[data-testid=message-list] article[data-role=user]').last();
  const body = question.locator('.cc-plain-text, .cc-markdown').first();
  await expect(body).toContainText(ARABIC);
  expect(await layout(body)).toEqual({ direction: 'rtl', textAlign: 'start' });
  // Laid out right to left: the first letter is at the right, the closing "!)" at the far left (in a left-to-right
  // paragraph they would follow the Arabic on its right), and the line sits against the right edge.
  const line = await body.evaluate((element) => {
    const walker = document.createTreeWalker(element, NodeFilter.SHOW_TEXT);
    const node = walker.nextNode() as Text;
    const at = (start: number) => {
      const range = document.createRange();
      range.setStart(node, start);
      range.setEnd(node, start + 1);
      return range.getBoundingClientRect();
    };
    const all = document.createRange();
    all.selectNodeContents(element);
    const box = element.getBoundingClientRect();
    const text = all.getBoundingClientRect();
    const length = node.data.trimEnd().length;
    return {
      firstLeft: at(0).left,
      closingLeft: at(length - 1).left,
      bangLeft: at(length - 2).left,
      gapRight: box.right - text.right,
      gapLeft: text.left - box.left,
    };
  });
  expect(line.closingLeft).toBeLessThan(line.firstLeft);
  expect(line.bangLeft).toBeLessThan(line.firstLeft);
  expect(line.gapRight).toBeLessThan(line.gapLeft);

  const heading = page.getByTestId('conversation-title');
  await expect(heading).toHaveText(title);
  expect((await layout(heading)).direction).toBe('rtl');
  const listed = page.getByTestId('conversation-list').getByText(title);
  expect((await layout(listed)).direction).toBe('rtl');
});

test('a wrong password is said once for the form, and the password is selected to be typed again', async ({
  page,
}) => {
  await useEnglish(page);
  await page.goto('/login');
  const username = page.getByLabel('Username');
  const password = page.getByLabel('Password', { exact: true });
  await username.fill(ADMIN.username);
  await password.fill('definitely-wrong');
  await page.getByRole('button', { name: 'Log in' }).click();
  const alert = page.getByRole('alert').filter({ hasText: 'Incorrect username or password' });
  await expect(alert).toHaveText('Incorrect username or password');
  await expect(page.getByText('Incorrect username or password')).toHaveCount(1);
  const alertId = await alert.getAttribute('id');
  for (const field of [username, password]) {
    await expect(field).toHaveAttribute('aria-invalid', 'true');
    await expect(field).toHaveAttribute('aria-errormessage', alertId ?? '');
  }
  await expect(password).toBeFocused();
  expect(
    await password.evaluate((input: HTMLInputElement) => [input.selectionStart, input.selectionEnd]),
  ).toEqual([0, 'definitely-wrong'.length]);
  // Typing replaces the selected password.
  await page.keyboard.type(ADMIN.password);
  await page.keyboard.press('Enter');
  await expect(page.getByTestId('user-menu')).toBeVisible({ timeout: 30_000 });
});

test('the theme and language buttons say the current choice, which their menus check', async ({ page }) => {
  await page.emulateMedia({ colorScheme: 'light' });
  await page.goto('/home');
  const theme = page.getByTestId('theme-toggle');
  const language = page.getByTestId('language-menu');
  await expect(theme).toHaveAccessibleName('主题：跟随设备');
  await expect(language).toHaveAccessibleName('语言：简体中文');

  await theme.click();
  await expect(page.getByRole('menuitemradio', { name: '跟随设备' })).toHaveAttribute('aria-checked', 'true');
  await expect(page.getByRole('menuitemradio', { name: '深色' })).toHaveAttribute('aria-checked', 'false');
  // The check mark is seen, not only announced.
  await expect(page.getByRole('menuitemradio', { name: '跟随设备' }).locator('svg').first()).toBeVisible();
  await page.getByRole('menuitemradio', { name: '深色' }).click();
  await expect(theme).toHaveAccessibleName('主题：深色');

  await language.click();
  await expect(page.getByRole('menuitemradio', { name: '简体中文' })).toHaveAttribute('aria-checked', 'true');
  await page.getByRole('menuitemradio', { name: 'English' }).click();
  await expect(language).toHaveAccessibleName('Language: English');
  await expect(theme).toHaveAccessibleName('Theme: Dark');
  await language.click();
  await expect(page.getByRole('menuitemradio', { name: 'English' })).toHaveAttribute('aria-checked', 'true');
});

test('the reset password dialog shows the rule and a refusal under the field, with no toast', async ({
  page,
}) => {
  await loginInChinese(page, '/conversation');
  await page.getByTestId('user-menu').click();
  await page.getByRole('menuitem', { name: '重置密码' }).click();
  const dialog = page.getByRole('dialog', { name: '重置密码' });
  const input = dialog.getByLabel('新密码');
  await expect(input).toHaveAccessibleDescription(/6 位以上/);
  await input.fill('abc');
  await dialog.getByRole('button', { name: '确定' }).click();
  await expect(input).toHaveAttribute('aria-invalid', 'true');
  await expect(dialog.locator('.mantine-InputWrapper-error')).toHaveText(/6 位以上/);
  await expect(input).toBeFocused();
  // Give a toast the time to come: none does.
  await page.waitForTimeout(500);
  await expect(page.locator('.cc-toasts .mantine-Notification-root')).toHaveCount(0);
  await expect(dialog).toBeVisible();
});

test('the quick buttons of the limits dialog are in Chinese in the Chinese UI', async ({ page }) => {
  await loginInChinese(page, '/admin/user');
  const row = page.getByRole('row').filter({ hasText: ADMIN.username }).first();
  await row.getByRole('button', { name: `${ADMIN.username} 的更多操作` }).click();
  await page.getByRole('menuitem', { name: '额度与权限' }).click();
  const settings = page.getByRole('dialog', { name: `${ADMIN.username} 的额度与权限` });
  await expect(settings.getByTestId('settings-openai_web')).toBeVisible();
  for (const [text, words] of [
    ['+1天', '延长一天'] as const,
    ['+1周', '延长一周'],
    ['+1个月', '延长一个月'],
    ['+1年', '延长一年'],
  ])
    await expect(settings.getByRole('button', { name: `${text}：${words}` }).first()).toHaveText(text);
  await expect(settings.getByRole('button', { name: '剩余总提问次数：增加 1000' }).first()).toHaveText(
    '+1000',
  );
  await expect(settings.getByRole('button', { name: /^\+1[dwmyk]$/ })).toHaveCount(0);
});
