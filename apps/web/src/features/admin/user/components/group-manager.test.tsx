import { MantineProvider } from '@mantine/core';
import { ModalsProvider } from '@mantine/modals';
import { notifications } from '@mantine/notifications';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import type { UserGroupRead, UserGroupWrite } from '@cc/contracts';
import { cleanup, fireEvent, render, screen, within } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { i18n } from '../../../../i18n';
import { installDomStubs } from '../../shared/test-dom';
import { defaultTemplate } from '../lib/group-form';
import { GroupManager } from './group-manager';

type Call = { method: string; url: string; body: unknown };
let calls: Call[];
const interns: UserGroupRead = {
  id: 4,
  name: 'Interns',
  ...defaultTemplate(),
  member_count: 2,
  create_time: '2026-01-01T00:00:00Z',
  update_time: '2026-01-01T00:00:00Z',
};
const ok = (result: unknown) =>
  new Response(JSON.stringify({ code: 200, message: 'common.success', result }), { status: 200 });

beforeEach(async () => {
  installDomStubs();
  await i18n.changeLanguage('en-US');
  calls = [];
  vi.stubGlobal(
    'fetch',
    vi.fn((url: string, init: RequestInit = {}) => {
      const method = init.method ?? 'GET';
      calls.push({ method, url, body: typeof init.body === 'string' ? JSON.parse(init.body) : undefined });
      if (method === 'GET') return Promise.resolve(ok([interns]));
      if (method === 'PUT' && url === '/api/system/groups/4')
        return Promise.resolve(
          new Response(
            JSON.stringify({
              code: 409,
              message: 'errors.groupAlreadyExists',
              result: null,
              params: { name: 'Staff' },
            }),
            { status: 409 },
          ),
        );
      return Promise.resolve(ok({ ...interns, id: 5 }));
    }),
  );
});
afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
});

function renderManager() {
  render(
    <QueryClientProvider client={new QueryClient()}>
      <MantineProvider>
        <ModalsProvider>
          <GroupManager />
        </ModalsProvider>
      </MantineProvider>
    </QueryClientProvider>,
  );
}

describe('GroupManager', () => {
  it('lists the groups and creates one with a total ask count, without an own API endpoint', async () => {
    renderManager();
    const row = (await screen.findByText('Interns')).closest('tr') as HTMLElement;
    expect(within(row).getByText('2')).toBeTruthy();

    fireEvent.click(screen.getByRole('button', { name: 'Add group' }));
    fireEvent.click(screen.getByRole('button', { name: 'Save' }));
    expect(await screen.findByText(/name: Enter the group name/)).toBeTruthy();
    expect(calls.filter((c) => c.method !== 'GET')).toHaveLength(0);

    fireEvent.change(screen.getByRole('textbox', { name: /Group name/ }), { target: { value: ' Staff ' } });
    fireEvent.change(screen.getByRole('textbox', { name: 'Total asks left' }), { target: { value: '3' } });
    fireEvent.click(screen.getByRole('button', { name: 'Save' }));
    await screen.findByText('Interns');
    const post = calls.find((c) => c.method === 'POST');
    const body = post?.body as UserGroupWrite;
    expect(post?.url).toBe('/api/system/groups');
    expect(body.name).toBe('Staff');
    expect(body.openai_web.total_ask_count).toBe(3);
    expect(body.openai_api).not.toHaveProperty('custom_openai_api_settings');
    // Without the switch the group leaves budgets to its members.
    expect(body.budgets).toBeNull();
  });

  it('a group that sets budgets sends them', async () => {
    renderManager();
    await screen.findByText('Interns');
    fireEvent.click(screen.getByRole('button', { name: 'Add group' }));
    fireEvent.change(screen.getByRole('textbox', { name: /Group name/ }), { target: { value: 'Paid' } });
    fireEvent.click(screen.getByRole('switch', { name: /^The group sets its members/ }));
    fireEvent.change(screen.getByRole('textbox', { name: 'Budget' }), { target: { value: '12.5' } });
    fireEvent.change(screen.getByRole('textbox', { name: 'Daily budget' }), { target: { value: '1' } });
    fireEvent.click(screen.getByRole('button', { name: 'Save' }));
    await screen.findByText('Interns');
    const body = calls.find((c) => c.method === 'POST')?.body as UserGroupWrite;
    expect(body.budgets).toEqual({ credits: 12.5, daily_budget: 1, monthly_budget: -1 });
  });

  describe('deleting a group, once confirmed, moves the focus on', () => {
    const staff: UserGroupRead = { ...interns, id: 7, name: 'Staff', member_count: 0 };
    /** `groups` listed until a DELETE, then those left. */
    const serve = (groups: UserGroupRead[]) => {
      let left = groups;
      vi.stubGlobal(
        'fetch',
        vi.fn((url: string, init: RequestInit = {}) => {
          const method = init.method ?? 'GET';
          if (method === 'DELETE') left = left.filter((g) => !url.endsWith(`/${g.id}`));
          return Promise.resolve(ok(method === 'GET' ? left : null));
        }),
      );
    };
    const deleteConfirmed = async (name: string) => {
      const button = await screen.findByRole('button', { name: `Delete group ${name}` });
      button.focus();
      fireEvent.click(button);
      const dialog = await screen.findByRole('dialog', { name: 'Delete group' });
      fireEvent.click(within(dialog).getByRole('button', { name: 'Delete' }));
      await vi.waitFor(() => expect(screen.queryByText(name)).toBeNull());
    };

    it('to the next group’s Delete button', async () => {
      serve([interns, staff]);
      renderManager();
      await deleteConfirmed('Interns');
      await vi.waitFor(() =>
        expect(document.activeElement).toBe(screen.getByRole('button', { name: 'Delete group Staff' })),
      );
    });

    it('to Add group when it was the last group', async () => {
      serve([interns]);
      renderManager();
      await deleteConfirmed('Interns');
      await vi.waitFor(() =>
        expect(document.activeElement).toBe(screen.getByRole('button', { name: 'Add group' })),
      );
    });
  });

  it('keeps the row, says nothing of a deletion and leaves no unhandled failure when the server refuses it', async () => {
    const unhandled: unknown[] = [];
    const note = (reason: unknown) => unhandled.push(reason);
    process.on('unhandledRejection', note);
    try {
      vi.stubGlobal(
        'fetch',
        vi.fn((_url: string, init: RequestInit = {}) =>
          Promise.resolve(
            (init.method ?? 'GET') === 'GET'
              ? ok([interns])
              : new Response(JSON.stringify({ code: 500, message: 'errors.internalError', result: null }), {
                  status: 500,
                }),
          ),
        ),
      );
      const shown = vi.spyOn(notifications, 'show');
      renderManager();
      const button = await screen.findByRole('button', { name: 'Delete group Interns' });
      button.focus();
      fireEvent.click(button);
      const dialog = await screen.findByRole('dialog', { name: 'Delete group' });
      fireEvent.click(within(dialog).getByRole('button', { name: 'Delete' }));
      await vi.waitFor(() => expect(screen.queryByRole('dialog', { name: 'Delete group' })).toBeNull());
      await new Promise((resolve) => setTimeout(resolve, 0));
      expect(unhandled).toEqual([]);
      expect(screen.getByText('Interns')).toBeTruthy();
      expect(shown.mock.calls.map(([n]) => n.message)).not.toContain(i18n.t('adminx.common.deleted'));
      shown.mockRestore();
    } finally {
      process.off('unhandledRejection', note);
    }
  });

  it('keeps the form open when the server refuses the save', async () => {
    renderManager();
    fireEvent.click(await screen.findByRole('button', { name: 'Edit group Interns' }));
    fireEvent.change(screen.getByRole('textbox', { name: /Group name/ }), { target: { value: 'Staff' } });
    fireEvent.click(screen.getByRole('button', { name: 'Save' }));
    await vi.waitFor(() => expect(calls.some((c) => c.method === 'PUT')).toBe(true));
    // The form stays open; the shell's request error handler shows the translated refusal.
    expect(screen.getByRole('textbox', { name: /Group name/ })).toBeTruthy();
  });
});
