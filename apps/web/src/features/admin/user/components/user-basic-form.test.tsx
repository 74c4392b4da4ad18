import { MantineProvider } from '@mantine/core';
import { notifications } from '@mantine/notifications';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { cleanup, fireEvent, render, screen, waitFor } from '@testing-library/react';
import type { UserReadAdmin } from '@cc/contracts';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { i18n } from '../../../../i18n';
import { queryKeys } from '../../../../lib/query-keys';
import { clearLoginFlag, setLoginFlag } from '../../../../lib/session';
import { adminUser } from '../../shared/fixtures';
import { installDomStubs } from '../../shared/test-dom';
import { UserBasicForm } from './user-basic-form';

beforeEach(async () => {
  installDomStubs();
  await i18n.changeLanguage('en-US');
});
afterEach(() => {
  cleanup();
  clearLoginFlag();
});

/** The form as the admin `me` sees it (me is in the cache, as after login). */
function renderForm(user: UserReadAdmin | undefined, me: UserReadAdmin) {
  setLoginFlag();
  const client = new QueryClient({ defaultOptions: { queries: { retry: false } } });
  client.setQueryData(queryKeys.me, me);
  render(
    <QueryClientProvider client={client}>
      <MantineProvider>
        <UserBasicForm user={user} onDone={() => undefined} />
      </MantineProvider>
    </QueryClientProvider>,
  );
}

const switchNamed = (name: string) => screen.getByRole<HTMLInputElement>('switch', { name });

describe('UserBasicForm flags', () => {
  it("locks the active and superuser switches on the admin's own row, and says why", async () => {
    const me = adminUser({ id: 1, username: 'admin', is_superuser: true });
    renderForm(me, me);
    expect(switchNamed('Active').disabled).toBe(true);
    expect(switchNamed('Superuser').disabled).toBe(true);
    expect(switchNamed('Verified').disabled).toBe(false);
    const [active, superuser] = screen.getAllByTestId('locked-switch');
    fireEvent.mouseEnter(active!);
    expect(await screen.findByText(/you cannot deactivate it yourself/)).toBeTruthy();
    fireEvent.mouseEnter(superuser!);
    expect(await screen.findByText(/you cannot take away your own superuser rights/)).toBeTruthy();
  });

  it("leaves another user's switches usable", () => {
    const me = adminUser({ id: 1, username: 'admin', is_superuser: true });
    renderForm(adminUser({ id: 7, is_superuser: true }), me);
    expect(switchNamed('Active').disabled).toBe(false);
    expect(switchNamed('Superuser').disabled).toBe(false);
    expect(screen.queryByTestId('locked-switch')).toBeNull();
  });
});

describe('UserBasicForm, a new user', () => {
  it('a refused submit moves the focus to the first invalid field; the password rule is said once', async () => {
    const me = adminUser({ id: 1, username: 'admin', is_superuser: true });
    renderForm(undefined, me);
    const rule = i18n.t('validation.passwordRule');
    expect(screen.getAllByText(rule)).toHaveLength(1);
    fireEvent.change(screen.getByLabelText(/^Username/), { target: { value: 'newcomer' } });
    fireEvent.change(screen.getByLabelText(/^Nickname/), { target: { value: 'Newcomer' } });
    fireEvent.change(screen.getByLabelText(/^Email/), { target: { value: 'new@example.com' } });
    fireEvent.change(screen.getByLabelText(/^Password/), { target: { value: 'short' } });
    fireEvent.click(screen.getByRole('button', { name: 'Create' }));
    await waitFor(() => expect(document.activeElement).toBe(screen.getByLabelText(/^Password/)));
    // The rule is the field's error now, not also its description.
    expect(screen.getAllByText(rule)).toHaveLength(1);
  });
});

describe('UserBasicForm, a username the server refuses', () => {
  afterEach(() => vi.unstubAllGlobals());

  it('says a look-alike name on the field, naming the user it is like, and moves the focus there', async () => {
    const refusal = {
      code: 409,
      message: 'errors.usernameLookAlike',
      result: 'errors.detail.usernameLookAlikeOf',
      params: { username: 'Mary' },
    };
    vi.stubGlobal(
      'fetch',
      vi.fn(() => Promise.resolve(new Response(JSON.stringify(refusal), { status: 409 }))),
    );
    renderForm(undefined, adminUser({ id: 1, username: 'admin', is_superuser: true }));
    fireEvent.change(screen.getByLabelText(/^Username/), { target: { value: 'rnary' } });
    fireEvent.change(screen.getByLabelText(/^Nickname/), { target: { value: 'Rnary' } });
    fireEvent.change(screen.getByLabelText(/^Email/), { target: { value: 'rnary@example.com' } });
    fireEvent.change(screen.getByLabelText(/^Password/), { target: { value: 'long-enough-1' } });
    fireEvent.click(screen.getByRole('button', { name: 'Create' }));
    const field = screen.getByLabelText(/^Username/);
    await waitFor(() => expect(document.activeElement).toBe(field));
    expect(field.getAttribute('aria-invalid')).toBe('true');
    expect(
      screen.getByText(
        "The username looks too much like an existing user's: Looks like the existing user Mary",
      ),
    ).toBeTruthy();
  });
});

describe('UserBasicForm, a created user', () => {
  afterEach(() => vi.unstubAllGlobals());

  it('is named in the confirmation as the server stored the name (full-width letters as plain ones)', async () => {
    const shown = vi.spyOn(notifications, 'show');
    const stored = adminUser({ id: 9, username: 'bob' });
    vi.stubGlobal(
      'fetch',
      vi.fn(() =>
        Promise.resolve(
          new Response(JSON.stringify({ code: 200, message: 'tips.requestSuccess', result: stored }), {
            status: 200,
          }),
        ),
      ),
    );
    renderForm(undefined, adminUser({ id: 1, username: 'admin', is_superuser: true }));
    fireEvent.change(screen.getByLabelText(/^Username/), { target: { value: 'ｂｏｂ' } });
    fireEvent.change(screen.getByLabelText(/^Nickname/), { target: { value: 'Bob' } });
    fireEvent.change(screen.getByLabelText(/^Email/), { target: { value: 'bob@example.com' } });
    fireEvent.change(screen.getByLabelText(/^Password/), { target: { value: 'long-enough-1' } });
    fireEvent.click(screen.getByRole('button', { name: 'Create' }));
    await waitFor(() => expect(shown).toHaveBeenCalled());
    expect(shown.mock.calls[0]![0].message).toBe(i18n.t('adminx.user.createdMessage', { username: 'bob' }));
    shown.mockRestore();
  });
});
