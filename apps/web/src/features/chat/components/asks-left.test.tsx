import { MantineProvider } from '@mantine/core';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { cleanup, render, screen } from '@testing-library/react';
import type { ReactNode } from 'react';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { UserRead } from '@cc/contracts';
import { i18n } from '../../../i18n';
import { queryKeys } from '../../../lib/query-keys';
import { STORAGE_KEYS, writeStorage } from '../../../lib/storage';
import { installDomStubs } from '../../../test/dom-stubs';
import { webUser } from '../../../test/fixtures';
import { AsksLeft } from './asks-left';
import { BudgetWarning } from './budget-warning';
import { NewConversationFormView } from './new-conversation-modal';

/** The user with a total spend budget in USD (GPT-4 asks reserve at least 0.06, GPT-3.5 0.0015). */
function withBudget(user: UserRead, total: { limit: number; spent: number; left: number }): UserRead {
  const none = { limit: -1, spent: 0, left: -1, resets_at: '2026-01-02T00:00:00.000Z' };
  return {
    ...user,
    setting: {
      ...user.setting,
      credits: total.limit,
      budget: {
        currency: 'USD',
        warn_at: 0.8,
        total: { ...total, resets_at: null },
        daily: none,
        monthly: none,
        ask_cost: { gpt_4: 0.06, gpt_3_5: 0.0015 },
      },
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
    wrap(webUser(0, {}), <AsksLeft user={webUser(0, {})} source="openai_web" model="gpt_4" />);
    expect(screen.getByTestId('remaining-asks').textContent).toBe('Asks left: 0');
  });

  it('chat header: the smaller of the total and the model count; unlimited only when both are', () => {
    const { rerender } = wrap(
      webUser(3, { gpt_4: 5 }),
      <AsksLeft user={webUser(3, { gpt_4: 5 })} source="openai_web" model="gpt_4" />,
    );
    expect(screen.getByTestId('remaining-asks').textContent).toBe('Asks left: 3');
    rerender(
      <MantineProvider>
        <AsksLeft user={webUser(-1, { gpt_4: 5 })} source="openai_web" model="gpt_4" />
      </MantineProvider>,
    );
    expect(screen.getByTestId('remaining-asks').textContent).toBe('Asks left: 5');
    rerender(
      <MantineProvider>
        <AsksLeft user={webUser(-1, {})} source="openai_web" model="gpt_4" />
      </MantineProvider>,
    );
    expect(screen.getByTestId('remaining-asks').textContent).toBe('Asks left: Unlimited');
  });

  it('model menu: a total of 0 shows 0 under the chosen model', () => {
    writeStorage(STORAGE_KEYS.lastSelectedSource, 'openai_web');
    writeStorage(STORAGE_KEYS.lastSelectedModel, 'gpt_4');
    wrap(
      webUser(0, { gpt_4: -1 }),
      <NewConversationFormView onConfirm={() => undefined} onCancel={() => undefined} />,
    );
    // the chosen model's description and each model of the menu
    expect(screen.getAllByText('Asks left: 0').length).toBeGreaterThanOrEqual(3);
    expect(screen.queryByText('Asks left: Unlimited')).toBeNull();
  });

  it('a spend budget binds when it covers fewer asks than the counts; the money left is shown', () => {
    const user = withBudget(webUser(3, { gpt_4: 5 }), { limit: 1, spent: 0.9, left: 0.1 });
    wrap(user, <AsksLeft user={user} source="openai_web" model="gpt_4" />);
    // 0.10 left, an ask of GPT-4 reserves at least 0.06: one more ask.
    expect(screen.getByTestId('remaining-asks').textContent).toBe('Asks left: 1');
    expect(screen.getByTestId('budget-left').textContent).toBe('Budget left: $0.10');
  });

  it('model menu: the budget binds there too', () => {
    writeStorage(STORAGE_KEYS.lastSelectedSource, 'openai_web');
    writeStorage(STORAGE_KEYS.lastSelectedModel, 'gpt_4');
    const user = withBudget(webUser(3, { gpt_4: 5 }), { limit: 1, spent: 1, left: 0 });
    wrap(user, <NewConversationFormView onConfirm={() => undefined} onCancel={() => undefined} />);
    expect(screen.getAllByText('Asks left: 0').length).toBeGreaterThanOrEqual(2);
  });
});

describe('budget warning', () => {
  it('shows nothing below the warning share, the amount left from it, and a spent budget in red', () => {
    const below = withBudget(webUser(3, {}), { limit: 1, spent: 0.5, left: 0.5 });
    const { rerender } = wrap(below, <BudgetWarning user={below} />);
    expect(screen.queryByTestId('budget-warning')).toBeNull();
    const near = withBudget(webUser(3, {}), { limit: 1, spent: 0.85, left: 0.15 });
    rerender(
      <MantineProvider>
        <BudgetWarning user={near} />
      </MantineProvider>,
    );
    const warning = screen.getByTestId('budget-warning');
    expect(warning.textContent).toContain('Most of your budget is spent');
    expect(warning.textContent).toContain('85% used: $0.85 of $1.00, $0.15 left.');
    const spent = withBudget(webUser(3, {}), { limit: 1, spent: 1, left: 0 });
    rerender(
      <MantineProvider>
        <BudgetWarning user={spent} />
      </MantineProvider>,
    );
    expect(screen.getByTestId('budget-warning').textContent).toContain('Your budget is spent');
  });
});
