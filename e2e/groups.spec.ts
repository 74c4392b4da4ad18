import { expect, test } from '@playwright/test';
import type { Page } from '@playwright/test';
import { login, useEnglish } from './helpers';

const suffix = Date.now() % 100000;
const prefix = `grp${suffix}`;
const GROUP = `Interns ${suffix}`;

test.beforeEach(async ({ page }) => {
  await useEnglish(page);
  await login(page);
});

async function createUser(page: Page, username: string) {
  await page.getByRole('button', { name: 'Add user' }).click();
  const drawer = page.getByRole('dialog', { name: 'Create user' });
  await drawer.getByLabel('Username').fill(username);
  await drawer.getByLabel('Nickname').fill(username);
  await drawer.getByLabel('Email').fill(`${username}@example.com`);
  await drawer.getByLabel(/^Password/).fill('group-pass-123');
  await drawer.getByRole('button', { name: 'Create' }).click();
  await expect(drawer).toBeHidden();
}

/** Opens the groups drawer, edits (or adds) the group with the given web total ask count, saves, closes. */
async function saveGroup(page: Page, totalAsks: string, edit: boolean) {
  await page.getByRole('button', { name: 'Groups', exact: true }).click();
  const drawer = page.getByRole('dialog', { name: 'Groups' });
  if (edit) await drawer.getByRole('button', { name: `Edit group ${GROUP}` }).click();
  else {
    await drawer.getByRole('button', { name: 'Add group' }).click();
    await drawer.getByLabel('Group name').fill(GROUP);
  }
  await drawer.getByRole('textbox', { name: 'Total asks left' }).fill(totalAsks);
  await drawer.getByRole('button', { name: 'Save' }).click();
  await expect(drawer.getByRole('row').filter({ hasText: GROUP })).toBeVisible();
  await page.keyboard.press('Escape');
  await expect(drawer).toBeHidden();
}

test('a group with a small ask count: two users join by a bulk action, a change of the group changes both', async ({
  page,
}) => {
  await page.goto('/admin/user');
  await createUser(page, `${prefix}a`);
  await createUser(page, `${prefix}b`);
  await saveGroup(page, '3', false);

  // Select all that match the search, then set their group.
  await page.getByLabel('Search users').fill(prefix);
  const rows = page.getByRole('row').filter({ hasText: prefix });
  await expect(rows).toHaveCount(2);
  await rows.first().getByRole('checkbox').check();
  const bar = page.getByTestId('user-bulk-actions');
  await bar.getByRole('button', { name: 'Select all 2 that match' }).click();
  await expect(bar).toContainText('2 user(s) selected');
  await bar.getByRole('button', { name: 'Set group…' }).click();
  const dialog = page.getByRole('dialog', { name: 'Set the group of 2 user(s)' });
  await dialog.getByRole('combobox', { name: 'Group' }).click();
  await page.getByRole('option', { name: GROUP }).click();
  await dialog.getByRole('button', { name: 'Set group' }).click();
  await expect(page.getByTestId('user-bulk-summary')).toContainText('Set group: 2 succeeded, 0 failed');

  for (const row of await rows.all()) {
    await expect(row.getByTestId('user-group')).toHaveText(GROUP);
    await expect(row.getByTestId('limits-openai_web')).toContainText('3 asks left');
  }

  // Changing the group changes both members at once.
  await saveGroup(page, '7', true);
  for (const row of await rows.all()) {
    await expect(row.getByTestId('limits-openai_web')).toContainText('7 asks left');
  }
});

test('bulk deactivation reports the refusal for the acting admin and deactivates the others', async ({
  page,
}) => {
  await page.goto('/admin/user');
  await createUser(page, `${prefix}c`);
  await page.getByLabel('Search users').fill(`${prefix}c`);
  await page
    .getByRole('row')
    .filter({ hasText: `${prefix}c` })
    .getByRole('checkbox')
    .check();
  await page.getByLabel('Search users').fill('admin');
  await page.getByRole('row').filter({ hasText: 'admin@localhost' }).getByRole('checkbox').check();
  await page.getByLabel('Search users').fill('');
  const bar = page.getByTestId('user-bulk-actions');
  await expect(bar).toContainText('2 user(s) selected');
  await bar.getByRole('button', { name: 'Deactivate' }).click();
  const summary = page.getByTestId('user-bulk-summary');
  await expect(summary).toContainText('Deactivate: 1 succeeded, 1 failed');
  await expect(summary).toContainText('admin: 409 You cannot deactivate your own account');
  await page.getByLabel('Search users').fill(`${prefix}c`);
  await expect(page.getByRole('row').filter({ hasText: `${prefix}c` })).toContainText('Inactive');
});
