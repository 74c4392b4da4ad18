import { MantineProvider } from '@mantine/core';
import { Notifications } from '@mantine/notifications';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { act, cleanup, fireEvent, render, screen, waitFor } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { i18n } from '../../../i18n';
import { onRequestError } from '../../../lib/api-client';
import type { ErrorEvent } from '../../../lib/api-client';
import { installDomStubs } from '../../../test/dom-stubs';
import { ResetPasswordContent } from './reset-password-modal';

const json = (status: number, body: unknown) =>
  new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json' } });

/** What the server says to a password it refuses (PATCH /api/user/me). */
const REFUSED = json(422, {
  code: 422,
  message: 'errors.invalidParams',
  result: { detail: [{ loc: ['body', 'password'], msg: 'validation.passwordRule', type: 'custom' }] },
});

let reported: ErrorEvent[];
let stopListening: () => void;
beforeEach(async () => {
  installDomStubs();
  await i18n.changeLanguage('zh-CN');
  reported = [];
  stopListening = onRequestError((event) => reported.push(event));
});
afterEach(async () => {
  stopListening();
  cleanup();
  vi.unstubAllGlobals();
  await i18n.changeLanguage('en-US');
});

function open(answer: () => Promise<Response>) {
  const fetchMock = vi.fn(answer);
  vi.stubGlobal('fetch', fetchMock);
  const onDone = vi.fn();
  render(
    <QueryClientProvider client={new QueryClient()}>
      <MantineProvider>
        <Notifications withinPortal={false} />
        <ResetPasswordContent onDone={onDone} />
      </MantineProvider>
    </QueryClientProvider>,
  );
  return { fetchMock, onDone };
}

const toasts = () => [...document.querySelectorAll('.mantine-Notification-root')].map((n) => n.textContent);

describe('the reset password dialog', () => {
  it('shows the password rule, and a refusal under the field in words: no toast, the dialog stays', async () => {
    const rule = i18n.t('validation.passwordRule');
    const { fetchMock, onDone } = open(() => Promise.resolve(REFUSED.clone()));
    const input = screen.getByLabelText<HTMLInputElement>('新密码');
    // The rule, as the admin's create-user dialog says it, under the field and read with it.
    const description = document.getElementById(input.getAttribute('aria-describedby') ?? '');
    expect(description?.textContent).toBe(rule);

    fireEvent.change(input, { target: { value: 'abc' } });
    fireEvent.click(screen.getByRole('button', { name: '确定' }));
    await waitFor(() => expect(input.getAttribute('aria-invalid')).toBe('true'));
    expect(fetchMock).toHaveBeenCalledTimes(1);
    const describedBy = (input.getAttribute('aria-describedby') ?? '').split(' ');
    const texts = describedBy.map((id) => document.getElementById(id)?.textContent);
    // Under the field: the rule (its description) and the refusal, which here is the rule, translated.
    expect(texts.filter((text) => text === rule)).toHaveLength(2);
    // One message: the request is not reported as a toast, and the dialog says nothing else.
    expect(reported.map((e) => e.toast)).toEqual([false]);
    await act(() => new Promise((resolve) => setTimeout(resolve, 50)));
    expect(toasts()).toEqual([]);
    expect(document.body.textContent).not.toMatch(/422|密码重置失败/);
    expect(onDone).not.toHaveBeenCalled();
    // Back to the field, to type again; typing clears the message.
    expect(document.activeElement).toBe(input);
    fireEvent.change(input, { target: { value: 'abcd' } });
    expect(input.getAttribute('aria-invalid')).toBeNull();
  });

  it('says a request that got no answer in one toast', async () => {
    open(() => Promise.reject(new TypeError('Failed to fetch')));
    fireEvent.change(screen.getByLabelText('新密码'), { target: { value: 'long-enough-123' } });
    fireEvent.click(screen.getByRole('button', { name: '确定' }));
    await waitFor(() => expect(toasts()).toHaveLength(1));
    expect(toasts()[0]).toContain('密码重置失败');
    expect(reported.map((e) => e.toast)).toEqual([false]);
  });
});
