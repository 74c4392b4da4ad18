import { MantineProvider } from '@mantine/core';
import { ModalsProvider } from '@mantine/modals';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import type { UserReadAdmin } from '@cc/contracts';
import { cleanup, fireEvent, render, screen, within } from '@testing-library/react';
import { useState } from 'react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { i18n } from '../../../../i18n';
import type { RowId } from '../../shared/data-table';
import { adminUser } from '../../shared/fixtures';
import { installDomStubs } from '../../shared/test-dom';
import { UserBulkBar } from './user-bulk-bar';

type Call = { method: string; url: string; body: unknown };
let calls: Call[];
const envelope = (code: number, message: string, result: unknown) =>
  new Response(JSON.stringify({ code, message, result }), { status: code === 200 ? 200 : code });

beforeEach(async () => {
  installDomStubs();
  await i18n.changeLanguage('en-US');
  calls = [];
  vi.stubGlobal(
    'fetch',
    vi.fn((url: string, init: RequestInit = {}) => {
      const body = typeof init.body === 'string' ? (JSON.parse(init.body) as unknown) : undefined;
      if (init.method && init.method !== 'GET') calls.push({ method: init.method, url, body });
      // The server refuses to deactivate the acting admin (user 1).
      if (url === '/api/system/groups')
        return Promise.resolve(envelope(200, 'common.success', [{ id: 4, name: 'Interns' }]));
      if (url === '/api/user/1' && init.method === 'PATCH')
        return Promise.resolve(envelope(409, 'errors.cannotDeactivateSelf', null));
      const read = /^\/api\/user\/(\d+)$/.exec(url);
      if (read && (init.method ?? 'GET') === 'GET')
        return Promise.resolve(
          envelope(
            200,
            'common.success',
            users.find((u) => u.id === Number(read[1])),
          ),
        );
      return Promise.resolve(envelope(200, 'common.success', init.method === 'DELETE' ? null : {}));
    }),
  );
});
afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
});

const users: UserReadAdmin[] = [
  adminUser({ id: 1, username: 'admin' }),
  adminUser({ id: 2, username: 'bob' }),
  adminUser({ id: 3, username: 'carol' }),
];

function Harness({ initial }: { initial: RowId[] }) {
  const [selected, setSelected] = useState<Set<RowId>>(new Set(initial));
  return (
    <UserBulkBar
      users={users.filter((u) => selected.has(u.id))}
      matching={users.length}
      onSelectAll={() => setSelected(new Set(users.map((u) => u.id)))}
      onSelectedChange={setSelected}
    />
  );
}

function renderBar(initial: RowId[]) {
  render(
    <QueryClientProvider client={new QueryClient()}>
      <MantineProvider>
        <ModalsProvider>
          <Harness initial={initial} />
        </ModalsProvider>
      </MantineProvider>
    </QueryClientProvider>,
  );
}

describe('UserBulkBar', () => {
  it('selects all that match, deactivates each, and reports a refusal as a failure with its reason', async () => {
    renderBar([2]);
    expect(screen.getByText('1 user(s) selected')).toBeTruthy();
    fireEvent.click(screen.getByRole('button', { name: 'Select all 3 that match' }));
    expect(await screen.findByText('3 user(s) selected')).toBeTruthy();
    fireEvent.click(screen.getByRole('button', { name: 'Deactivate' }));

    const summary = await screen.findByTestId('user-bulk-summary');
    expect(summary.textContent).toContain('Deactivate: 2 succeeded, 1 failed');
    expect(within(summary).getByText(/admin: 409 You cannot deactivate your own account/)).toBeTruthy();
    expect(calls.map((c) => `${c.method} ${c.url} ${JSON.stringify(c.body)}`).sort()).toEqual([
      'PATCH /api/user/1 {"is_active":false}',
      'PATCH /api/user/2 {"is_active":false}',
      'PATCH /api/user/3 {"is_active":false}',
    ]);
    // The failed user stays selected for a retry.
    expect(screen.getByText('1 user(s) selected')).toBeTruthy();
  });

  it('applies settings to one source of each selected user, keeping the rest of their settings', async () => {
    renderBar([2, 3]);
    fireEvent.click(screen.getByRole('button', { name: 'Apply settings…' }));
    const dialog = await screen.findByRole('dialog', { name: 'Apply settings to 2 user(s)' });
    const apply = within(dialog).getByRole('button', { name: 'Apply' });
    expect(apply).toHaveProperty('disabled', true);
    fireEvent.click(within(dialog).getByText('Set asks left'));
    fireEvent.change(within(dialog).getByRole('textbox', { name: 'Set asks left' }), {
      target: { value: '5' },
    });
    fireEvent.click(within(dialog).getAllByText('Forbid')[0] as HTMLElement);
    fireEvent.click(apply);

    const summary = await screen.findByTestId('user-bulk-summary');
    expect(summary.textContent).toContain('Apply settings: 2 succeeded, 0 failed');
    expect(calls).toHaveLength(2);
    // Each user's settings were read just before the change.
    expect(vi.mocked(fetch).mock.calls.map(([url]) => url)).toEqual(
      expect.arrayContaining(['/api/user/2', '/api/user/3']),
    );
    for (const call of calls) {
      expect(call.method).toBe('PATCH');
      expect(call.url).toMatch(/^\/api\/user\/[23]\/setting$/);
      const body = call.body as UserReadAdmin['setting'];
      expect(body.openai_web.total_ask_count).toBe(5);
      expect(body.openai_web.allow_to_use).toBe(false);
      expect(body.openai_api).toEqual(users[1]?.setting.openai_api);
    }
  });

  it('deletes only after the confirmation', async () => {
    renderBar([3]);
    fireEvent.click(screen.getByRole('button', { name: 'Delete' }));
    const dialog = await screen.findByRole('dialog');
    expect(dialog.textContent).toContain('Delete 1 user(s)?');
    expect(calls).toHaveLength(0);
    fireEvent.click(within(dialog).getByRole('button', { name: 'Delete' }));
    expect((await screen.findByTestId('user-bulk-summary')).textContent).toContain(
      'Delete: 1 succeeded, 0 failed',
    );
    expect(calls.map((c) => `${c.method} ${c.url}`)).toEqual(['DELETE /api/user/3']);
  });

  it('puts the selected users in a group, one request each', async () => {
    renderBar([2, 3]);
    fireEvent.click(screen.getByRole('button', { name: 'Set group…' }));
    const dialog = await screen.findByRole('dialog', { name: 'Set the group of 2 user(s)' });
    fireEvent.click(within(dialog).getByRole('combobox', { name: 'Group' }));
    fireEvent.click(await screen.findByRole('option', { name: 'Interns', hidden: true }));
    fireEvent.click(within(dialog).getByRole('button', { name: 'Set group' }));
    expect((await screen.findByTestId('user-bulk-summary')).textContent).toContain(
      'Set group: 2 succeeded, 0 failed',
    );
    expect(
      calls
        .filter((c) => c.method === 'PATCH')
        .map((c) => `${c.url} ${JSON.stringify(c.body)}`)
        .sort(),
    ).toEqual(['/api/user/2 {"group_id":4}', '/api/user/3 {"group_id":4}']);
  });
});
