import { readFileSync } from 'node:fs';
import { expect, test } from '@playwright/test';
import { e2eDatabase, login, send, startConversation, useEnglish } from './helpers';

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
  // The filters are applied (the target box waits for typing to pause): one entry under the header row, so the CSV
  // below is made with the same filters.
  await expect(page.getByRole('table', { name: 'Audit log' }).getByRole('row')).toHaveCount(2);
  const entries = page
    .getByRole('table', { name: 'Audit log' })
    .getByRole('row')
    .filter({ hasText: USER.username });
  await expect(entries).toHaveCount(1);
  const entry = entries.first();
  await expect(entry).toContainText("Changed a user's settings and quotas");
  await expect(entry).toContainText('admin');
  await expect(entry).toContainText('OpenAI Web › Total asks left: 100 → 7');
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

/**
 * Every kind of administrative change, made through the API the console uses, is found on the audit page by its
 * action filter (the HTTP tests check each entry's fields; this checks the page shows each kind by name).
 */
test('each kind of change has its entry on the audit page', async ({ page, browser, baseURL }) => {
  test.setTimeout(120_000);
  await useEnglish(page);
  await login(page, '/login?redirect=/conversation');
  const origin = new URL(baseURL!).origin;
  const api = async (method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE', url: string, data?: unknown) => {
    const res = await page.request.fetch(url, { method, data, headers: { origin } });
    expect(res.status(), `${method} ${url}: ${await res.text()}`).toBeLessThan(300);
    return ((await res.json()) as { result: unknown }).result;
  };
  const tag = `kinds${Date.now() % 100000}`;

  // A failed login (another browser, a wrong password).
  const stranger = await browser.newContext();
  const failed = await stranger.request.post('/api/auth/login', {
    form: { username: 'admin', password: 'not-the-password' },
    headers: { origin },
  });
  expect(failed.status()).toBe(401);
  await stranger.close();

  // Users: create, update, settings, reset chat status, delete.
  const created = (await api('POST', '/api/auth/register', {
    username: tag,
    nickname: tag,
    email: `${tag}@example.com`,
    password: 'kinds-pass-123',
  })) as { id: number };
  const other = (await api('POST', '/api/auth/register', {
    username: `${tag}b`,
    nickname: `${tag}b`,
    email: `${tag}b@example.com`,
    password: 'kinds-pass-123',
  })) as { id: number; setting: Record<string, unknown> };
  await api('PATCH', `/api/user/${created.id}`, { remark: 'audited' });
  const { id: _id, user_id: _user, openai_web_chat_status: _status, ...setting } = other.setting;
  await api('PATCH', `/api/user/${other.id}/setting`, setting);
  await api('POST', `/api/user/${other.id}/reset-chat-status`);

  // Groups: create, update, delete.
  const defaults = (await api('GET', '/api/system/config')) as {
    user_defaults: { openai_web: unknown; openai_api: { custom_openai_api_settings?: unknown } };
  };
  const { custom_openai_api_settings: _custom, ...apiTemplate } = defaults.user_defaults.openai_api;
  const group = (await api('POST', '/api/system/groups', {
    name: `${tag} group`,
    openai_web: defaults.user_defaults.openai_web,
    openai_api: apiTemplate,
  })) as { id: number };
  await api('PUT', `/api/system/groups/${group.id}`, {
    name: `${tag} group 2`,
    openai_web: defaults.user_defaults.openai_web,
    openai_api: apiTemplate,
  });
  await api('DELETE', `/api/system/groups/${group.id}`);

  // Conversations of a user: invalidate, assign, destroy (rows seeded in the database).
  const db = e2eDatabase();
  const now = new Date().toISOString();
  const ids = ['a', 'b', 'c'].map(
    (k, i) => `00000000-0000-4000-8000-${String(Date.now() % 1e9).padStart(10, '0')}${i}${k === 'a' ? 0 : 1}`,
  );
  for (const [i, id] of ids.entries()) {
    db.prepare(
      `insert into conversations (conversation_id, source, title, user_id, is_valid, is_public, current_model,
         create_time, update_time) values (?, 'openai_api', ?, ?, 1, 0, 'gpt_3_5', ?, ?)`,
    ).run(id, `${tag} conversation ${i}`, created.id, now, now);
  }
  db.close();
  await api('DELETE', `/api/conv/${ids[0]}`);
  await api('PATCH', `/api/conv/${ids[1]}/assign/${tag}b`);
  await api('DELETE', `/api/conv/${ids[2]}/vanish`);

  // A share link of the admin's own answered conversation: create, revoke.
  await startConversation(page, 'OpenAI API', /^GPT-3\.5/, `${tag} shared`);
  await send(page, 'A question to share');
  await expect(page.getByTestId('send-button')).toBeVisible({ timeout: 20_000 });
  await expect(page).toHaveURL(/[?&]id=[0-9a-f-]{36}/);
  const conversationId = new URL(page.url()).searchParams.get('id')!;
  await api('POST', `/api/conv/${conversationId}/shares`);
  await api('DELETE', `/api/conv/${conversationId}/shares`);

  // A server: add (disabled, no traffic), update, delete.
  const server = (await api('POST', '/api/system/addMachine', {
    source: 'openai_api',
    hostname: `${tag}-host`,
    ip_address: '127.0.0.1',
    port: 9,
    base_path: '/v1/',
    status: 'disabled',
  })) as { id: number };
  await api('POST', '/api/system/updateMachine', { id: server.id, weight: 3 });
  await api('DELETE', `/api/system/delMachine/${server.id}`);

  // A task: run, and a schedule change (put back after).
  await api('POST', '/api/system/task/stats_retention/run');
  await api('PATCH', '/api/system/task/stats_retention', { interval_seconds: 7200 });
  await api('PATCH', '/api/system/task/stats_retention', { interval_seconds: 3600 });

  // The config: one value changed and put back.
  const config = (await api('GET', '/api/system/config')) as { openai_web: { gpt4_cap_per_3_hours: number } };
  const cap = config.openai_web.gpt4_cap_per_3_hours;
  await api('PUT', '/api/system/config', {
    ...config,
    openai_web: { ...config.openai_web, gpt4_cap_per_3_hours: cap + 1 },
  });
  await api('PUT', '/api/system/config', config);

  // An invite link: create, revoke.
  const invite = (await api('POST', '/api/system/invites', { expires_in_hours: 1, max_uses: 7 })) as {
    id: number;
  };
  await api('DELETE', `/api/system/invites/${invite.id}`);

  // Last, the user delete.
  await api('DELETE', `/api/user/${created.id}`);

  await page.goto('/admin/audit');
  await expect(page.getByRole('heading', { name: 'Audit log' })).toBeVisible();
  const table = page.getByRole('table', { name: 'Audit log' });
  for (const action of [
    'Logged in',
    'Failed login',
    'Created a user',
    'Updated a user',
    "Changed a user's settings and quotas",
    "Reset a user's chat status",
    'Deleted a user',
    'Created a group',
    'Changed a group',
    'Deleted a group',
    'Invalidated a conversation',
    'Assigned a conversation',
    'Destroyed a conversation',
    'Created a share link',
    'Revoked a share link',
    'Added a server',
    'Updated a server',
    'Deleted a server',
    'Ran a task',
    "Changed a task's schedule",
    'Changed the config',
    'Created an invite link',
    'Revoked an invite link',
  ]) {
    await page.getByRole('combobox', { name: 'Action' }).click();
    await page.getByRole('option', { name: action, exact: true }).click();
    await expect(table.getByRole('row').filter({ hasText: action }).first(), action).toBeVisible();
  }
});
