import { MantineProvider } from '@mantine/core';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { cleanup, render, screen } from '@testing-library/react';
import type { ReactNode } from 'react';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DEFAULT_NEW_USER_API, DEFAULT_NEW_USER_WEB } from '@cc/contracts';
import type { UserRead } from '@cc/contracts';
import { i18n } from '../../../i18n';
import { queryKeys } from '../../../lib/query-keys';
import { STORAGE_KEYS, writeStorage } from '../../../lib/storage';
import { installDomStubs } from '../../../test/dom-stubs';
import { AsksLeft } from './asks-left';
import { NewConversationFormView } from './new-conversation-modal';

/** A user of openai_web with the given total and per-model counts (-1 = unlimited). */
function userWith(total: number, perModel: Record<string, number>): UserRead {
  return {
    id: 7,
    email: 'ann@example.com',
    is_active: true,
    is_superuser: false,
    is_verified: false,
    username: 'ann',
    nickname: 'Ann',
    last_active_time: null,
    create_time: '2026-01-01T00:00:00Z',
    avatar: null,
    setting: {
      id: 1,
      user_id: 7,
      credits: -1,
      openai_web_chat_status: 'idling',
      openai_web: {
        ...structuredClone(DEFAULT_NEW_USER_WEB),
        allow_to_use: true,
        available_models: ['gpt_3_5', 'gpt_4'],
        total_ask_count: total,
        per_model_ask_count: perModel,
      },
      openai_api: structuredClone(DEFAULT_NEW_USER_API),
    },
  };
}

function wrap(user: UserRead, children: ReactNode) {
  const client = new QueryClient({ defaultOptions: { queries: { retry: false } } });
  client.setQueryData(queryKeys.me, user);
  return render(
    <QueryClientProvider client={client}>
      <MantineProvider>{children}</MantineProvider>
    </QueryClientProvider>,
  );
}

beforeEach(async () => {
  installDomStubs();
  await i18n.changeLanguage('en-US');
});
afterEach(cleanup);

describe('asks left shows the limit that binds', () => {
  it('chat header: a total of 0 shows 0, not the unlimited per-model count', () => {
    wrap(userWith(0, {}), <AsksLeft user={userWith(0, {})} source="openai_web" model="gpt_4" />);
    expect(screen.getByTestId('remaining-asks').textContent).toBe('Asks left: 0');
  });

  it('chat header: the smaller of the total and the model count; unlimited only when both are', () => {
    const { rerender } = wrap(
      userWith(3, { gpt_4: 5 }),
      <AsksLeft user={userWith(3, { gpt_4: 5 })} source="openai_web" model="gpt_4" />,
    );
    expect(screen.getByTestId('remaining-asks').textContent).toBe('Asks left: 3');
    rerender(
      <MantineProvider>
        <AsksLeft user={userWith(-1, { gpt_4: 5 })} source="openai_web" model="gpt_4" />
      </MantineProvider>,
    );
    expect(screen.getByTestId('remaining-asks').textContent).toBe('Asks left: 5');
    rerender(
      <MantineProvider>
        <AsksLeft user={userWith(-1, {})} source="openai_web" model="gpt_4" />
      </MantineProvider>,
    );
    expect(screen.getByTestId('remaining-asks').textContent).toBe('Asks left: Unlimited');
  });

  it('model menu: a total of 0 shows 0 under the chosen model', () => {
    writeStorage(STORAGE_KEYS.lastSelectedSource, 'openai_web');
    writeStorage(STORAGE_KEYS.lastSelectedModel, 'gpt_4');
    wrap(
      userWith(0, { gpt_4: -1 }),
      <NewConversationFormView onConfirm={() => undefined} onCancel={() => undefined} />,
    );
    // the chosen model's description and each model of the menu
    expect(screen.getAllByText('Asks left: 0').length).toBeGreaterThanOrEqual(3);
    expect(screen.queryByText('Asks left: Unlimited')).toBeNull();
  });
});
