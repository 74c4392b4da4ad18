import { readFileSync } from 'node:fs';
import { expect, test } from '@playwright/test';
import { login, useEnglish } from './helpers';

const suffix = Date.now() % 100000;
const USER = { username: `audit${suffix}`, nickname: `Audit ${suffix}`, password: 'audit-pass-123' };

test('an admin changes a quota, finds it in the audit log with before → after, and downloads the CSV', async ({
  page,
}) => {
  await useEnglish(page);
  await login(page);
  await page.goto('/admin/user');
  await page.getByRole('button', { name: 'Add user' }).click();
  const drawer = page.getByRole('dialog', { name: 'Create user' });
  await drawer.getByLabel('Username').fill(USER.username);
  await drawer.getByLabel('Nickname').fill(USER.nickname);
  await drawer.getByLabel('Email').fill(`${USER.username}@example.com`);
  await drawer.getByLabel(/^Password/).fill(USER.password);
  await drawer.getByRole('button', { name: 'Create' }).click();
  await expect(drawer).toBeHidden();

  // The quota: 100 web asks (the new-user default) → 7.
  const row = page.getByRole('row').filter({ hasText: USER.username });
  await row.getByRole('button', { name: `More actions for ${USER.username}` }).click();
  await page.getByRole('menuitem', { name: 'Quotas and permissions' }).click();
  const settings = page.getByRole('dialog', { name: `Quotas and permissions of ${USER.username}` });
  await expect(settings.getByTestId('settings-openai_web')).toBeVisible();
  await settings.getByRole('textbox', { name: 'Total asks left' }).fill('7');
  await settings.getByRole('button', { name: 'Save' }).click();
  await expect(settings).toBeHidden();

  // The audit log, through the admin menu.
  await page
    .getByRole('navigation', { name: 'Administration' })
    .getByRole('link', { name: 'Audit log' })
    .click();
  await expect(page.getByRole('heading', { name: 'Audit log' })).toBeVisible();
  await page.getByRole('textbox', { name: 'Target', exact: true }).fill(USER.username);
  await page.getByRole('combobox', { name: 'Action' }).click();
  await page.getByRole('option', { name: "Changed a user's settings and quotas" }).click();
  const entries = page
    .getByRole('table', { name: 'Audit log' })
    .getByRole('row')
    .filter({ hasText: USER.username });
  await expect(entries).toHaveCount(1);
  const entry = entries.first();
  await expect(entry).toContainText("Changed a user's settings and quotas");
  await expect(entry).toContainText('admin');
  await expect(entry).toContainText('openai_web.total_ask_count: 100 → 7');
  // Only the field that changed (a per-model count left unlimited is no change).
  await expect(entry.getByText(/ → /)).toHaveCount(1);

  // The same filters, as CSV.
  const downloading = page.waitForEvent('download');
  await page.getByRole('button', { name: 'Download CSV' }).click();
  const download = await downloading;
  expect(download.suggestedFilename()).toMatch(/^audit-\d{4}-\d{2}-\d{2}\.csv$/);
  const csv = readFileSync(await download.path(), 'utf8').replace(/^\uFEFF/, '');
  const lines = csv.trimEnd().split('\r\n');
  expect(lines[0]).toBe(
    'time,actor_id,actor_name,address,action,target_type,target_id,target_label,outcome,changes',
  );
  expect(lines).toHaveLength(2);
  expect(lines[1]).toContain(`,admin,`);
  expect(lines[1]).toContain(`,user.settings,user,`);
  expect(lines[1]).toContain(`,${USER.username},success,`);
  expect(lines[1]).toContain('openai_web.total_ask_count: 100 → 7');
});
