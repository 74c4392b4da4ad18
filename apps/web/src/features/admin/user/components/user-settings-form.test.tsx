import { MantineProvider } from '@mantine/core';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { act, cleanup, fireEvent, render, screen } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { i18n } from '../../../../i18n';
import { adminUser } from '../../shared/fixtures';
import { installDomStubs } from '../../shared/test-dom';
import { countsSeen } from '../lib/setting-form';
import { UserSettingsForm } from './user-settings-form';

let fetchMock: ReturnType<typeof vi.fn>;
beforeEach(async () => {
  installDomStubs();
  await i18n.changeLanguage('en-US');
  fetchMock = vi.fn(() => Promise.reject(new Error('no request expected')));
  vi.stubGlobal('fetch', fetchMock);
});
afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
});

function renderForm() {
  const client = new QueryClient();
  render(
    <QueryClientProvider client={client}>
      <MantineProvider>
        <UserSettingsForm user={adminUser()} onDone={() => undefined} />
      </MantineProvider>
    </QueryClientProvider>,
  );
}

const field = (name: string) => screen.getByRole<HTMLInputElement>('textbox', { name });
const type = (name: string, text: string) => {
  fireEvent.change(field(name), { target: { value: text } });
  fireEvent.blur(field(name));
};

describe('UserSettingsForm number fields', () => {
  it('refuses a rate-limit window of 0 and a negative count as typed, and does not save', async () => {
    renderForm();
    type('Window (seconds)', '0');
    type('Total asks left', '-5');
    // What the admin typed stays; nothing is rewritten to 1 or 5.
    expect(field('Window (seconds)').value).toBe('0');
    expect(field('Total asks left').value).toBe('-5');
    expect(screen.getAllByText('Must be at least 1').length).toBeGreaterThan(0);
    expect(screen.getAllByText('Must be at least -1').length).toBeGreaterThan(0);

    fireEvent.click(screen.getByRole('button', { name: 'Save' }));
    expect(await screen.findByText('Please check the input')).toBeTruthy();
    // The summary names the fields as the form shows them (never `openai_web.rate_limits.0.window_seconds`).
    expect(
      screen.getByText('OpenAI Web › Rate limits 1 › Window (seconds): Must be at least 1'),
    ).toBeTruthy();
    expect(screen.getByText('OpenAI Web › Total asks left: Must be at least -1')).toBeTruthy();
    expect(document.body.textContent).not.toMatch(/openai_web\.|total_ask_count|window_seconds/);
    await act(() => i18n.changeLanguage('zh-CN'));
    fireEvent.click(screen.getByRole('button', { name: '保存' }));
    expect(await screen.findByText('OpenAI 网页版 › 频率限制 1 › 时间窗口（秒）：不能小于 1')).toBeTruthy();
    expect(fetchMock).not.toHaveBeenCalled();
  });

  it('names the validity buttons by what they show, then what they do', () => {
    renderForm();
    for (const [text, words] of [
      ['+1d', 'day'],
      ['+1w', 'week'],
    ])
      expect(
        screen.getAllByRole('button', { name: `${text}: Extend by one ${words}` }).length,
      ).toBeGreaterThan(0);
  });

  it('shows the quick buttons in Chinese in the Chinese UI (no "+1d" or "+1k" left in English)', async () => {
    await act(() => i18n.changeLanguage('zh-CN'));
    renderForm();
    for (const [text, words] of [
      ['+1天', '延长一天'],
      ['+1周', '延长一周'],
      ['+1个月', '延长一个月'],
      ['+1年', '延长一年'],
    ]) {
      const buttons = screen.getAllByRole('button', { name: `${text}：${words}` });
      expect(buttons.length).toBeGreaterThan(0);
      expect(buttons[0]!.textContent).toBe(text);
    }
    expect(screen.getAllByRole('button', { name: '剩余总提问次数：增加 1000' })[0]!.textContent).toBe(
      '+1000',
    );
    const shown = screen.getAllByRole('button').map((b) => b.textContent);
    expect(shown.filter((text) => /^\+1[dwmyk]$/.test(text ?? ''))).toEqual([]);
  });

  it('refuses empty credits instead of saving 0', async () => {
    renderForm();
    type('Budget', '');
    expect(screen.getByText('Enter a number')).toBeTruthy();
    fireEvent.click(screen.getByRole('button', { name: 'Save' }));
    expect(await screen.findByText(/^Budget: Enter a number/)).toBeTruthy();
    expect(fetchMock).not.toHaveBeenCalled();
  });

  it('refuses a daily budget below -1 or between -1 and 0, and more than 6 decimals; does not save', async () => {
    renderForm();
    type('Daily budget', '-2');
    expect(screen.getByText('Must be at least -1')).toBeTruthy();
    type('Daily budget', '-0.5');
    type('Monthly budget', '0.1234567');
    fireEvent.click(screen.getByRole('button', { name: 'Save' }));
    expect(
      await screen.findByText(/^Daily budget: A budget is -1 \(none\) or an amount of 0 or more/),
    ).toBeTruthy();
    expect(screen.getByText(/^Monthly budget: An amount has at most 6 decimals/)).toBeTruthy();
    expect(fetchMock).not.toHaveBeenCalled();
  });
});

describe('UserSettingsForm save', () => {
  it('sends the asks left as loaded with the form, so the server keeps those taken since', async () => {
    const user = adminUser();
    fetchMock.mockResolvedValue(
      new Response(JSON.stringify({ code: 200, message: 'tips.requestSuccess', result: user }), {
        status: 200,
        headers: { 'content-type': 'application/json' },
      }),
    );
    const client = new QueryClient();
    render(
      <QueryClientProvider client={client}>
        <MantineProvider>
          <UserSettingsForm user={user} onDone={() => undefined} />
        </MantineProvider>
      </QueryClientProvider>,
    );
    fireEvent.click(screen.getByRole('button', { name: 'Save' }));
    await vi.waitFor(() => expect(fetchMock).toHaveBeenCalled());
    const [, init] = fetchMock.mock.calls[0] as [string, RequestInit];
    expect(JSON.parse(init.body as string).counts_seen).toEqual(countsSeen(user.setting));
  });
});
