import { MantineProvider } from '@mantine/core';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { cleanup, fireEvent, render, screen } from '@testing-library/react';
import type { SystemInfo } from '@cc/contracts';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { i18n } from '../../../../i18n';
import type * as I18nModule from '../../../../i18n';
import { queryKeys } from '../../../../lib/query-keys';
import { clearLoginFlag, setLoginFlag } from '../../../../lib/session';
import { STORAGE_KEYS, writeStorage } from '../../../../lib/storage';
import { adminUser } from '../../shared/fixtures';
import { adminKeys } from '../../shared/query-keys';
import { installDomStubs } from '../../shared/test-dom';
import { DemoModeNotice } from './demo-notice';

/** Whether the admin strings count as loaded, and the notice's requests for them. */
const adminStrings = vi.hoisted(() => ({ ready: true, loads: 0 }));
vi.mock('../../../../i18n', async (importOriginal) => {
  const actual = await importOriginal<typeof I18nModule>();
  return {
    ...actual,
    adminStringsReady: () => adminStrings.ready,
    loadAdminStrings: async () => {
      adminStrings.loads += 1;
      await Promise.resolve();
      adminStrings.ready = true;
    },
  };
});

const DEMO: NonNullable<SystemInfo['demo']> = {
  sources: ['openai_web', 'openai_api'],
  emulator_url: 'http://127.0.0.1:8001',
};

let fetchSpy: ReturnType<typeof vi.fn>;
beforeEach(async () => {
  installDomStubs();
  await i18n.changeLanguage('en-US');
  fetchSpy = vi.fn(() => Promise.reject(new Error('no request expected')));
  vi.stubGlobal('fetch', fetchSpy);
});
afterEach(() => {
  cleanup();
  adminStrings.ready = true;
  adminStrings.loads = 0;
  clearLoginFlag();
  writeStorage(STORAGE_KEYS.demoNoticeHidden, null);
  vi.unstubAllGlobals();
});

/** The chat page's note, with `me` (and the server's demo mode, as /api/system/info gave it) in the cache. */
function renderNotice(me: { is_superuser: boolean }, demo: SystemInfo['demo'] | undefined = DEMO) {
  setLoginFlag();
  const client = new QueryClient({ defaultOptions: { queries: { retry: false } } });
  client.setQueryData(queryKeys.me, adminUser({ id: 1, username: 'admin', ...me }));
  if (demo !== undefined) client.setQueryData(adminKeys.demoMode, demo);
  return render(
    <QueryClientProvider client={client}>
      <MantineProvider>
        <DemoModeNotice />
      </MantineProvider>
    </QueryClientProvider>,
  );
}

describe('DemoModeNotice', () => {
  it('fetches the admin strings only to show the note: a superuser gets it once they are in', async () => {
    adminStrings.ready = false;
    renderNotice({ is_superuser: false });
    expect(screen.queryByTestId('demo-notice')).toBeNull();
    expect(adminStrings.loads).toBe(0);
    cleanup();

    renderNotice({ is_superuser: true });
    expect(screen.queryByTestId('demo-notice')).toBeNull();
    expect(await screen.findByTestId('demo-notice')).toBeTruthy();
    expect(adminStrings.loads).toBe(1);
  });

  it('tells a superuser what demo mode is and lists the demo prompts', () => {
    renderNotice({ is_superuser: true });
    const note = screen.getByTestId('demo-notice');
    expect(note.getAttribute('role')).toBe('note');
    fireEvent.click(screen.getByRole('button', { name: 'Show the demo prompts' }));
    expect(note.textContent).toContain('Demo mode');
    expect(note.textContent).toContain('OpenAI Web, OpenAI API');
    expect(note.textContent).toContain('http://127.0.0.1:8001');
    expect(note.textContent).toContain('every web model enabled (DALL·E included)');
    const triggers = [...note.querySelectorAll('code')].map((c) => c.textContent);
    for (const prompt of ['#browse', '#code', '#dalle', '#plugin', '#long N', '#error', '#fault:status=N'])
      expect(triggers).toContain(prompt);
    expect(note.textContent).toContain('an answer of exactly N words');
  });

  it('is translated (zh-CN)', async () => {
    await i18n.changeLanguage('zh-CN');
    renderNotice({ is_superuser: true });
    const note = screen.getByTestId('demo-notice');
    expect(note.textContent).toContain('演示模式');
    expect(note.textContent).toContain('OpenAI 网页版');
    expect(note.textContent).not.toContain('adminx.');
  });

  it('stays hidden once dismissed, until the server runs another demo setup', () => {
    const first = renderNotice({ is_superuser: true });
    fireEvent.click(screen.getByRole('button', { name: 'Hide this note' }));
    expect(screen.queryByTestId('demo-notice')).toBeNull();
    first.unmount();

    renderNotice({ is_superuser: true });
    expect(screen.queryByTestId('demo-notice')).toBeNull();
    cleanup();

    renderNotice({ is_superuser: true }, { ...DEMO, emulator_url: 'http://127.0.0.1:9001' });
    expect(screen.getByTestId('demo-notice')).toBeTruthy();
  });

  it('says nothing outside demo mode', () => {
    renderNotice({ is_superuser: true }, null);
    expect(screen.queryByTestId('demo-notice')).toBeNull();
  });

  it('is not for other users, who do not even ask (system info is superuser-only)', () => {
    renderNotice({ is_superuser: false }, undefined);
    expect(screen.queryByTestId('demo-notice')).toBeNull();
    expect(fetchSpy).not.toHaveBeenCalled();
  });
});
