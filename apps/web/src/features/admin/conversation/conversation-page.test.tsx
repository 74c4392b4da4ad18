import { MantineProvider } from '@mantine/core';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { cleanup, render, screen } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { ConversationRead } from '@cc/contracts';
import { i18n } from '../../../i18n';
import { installDomStubs } from '../shared/test-dom';
import { ConversationPage } from './conversation-page';

const conversation = (over: Partial<ConversationRead>): ConversationRead => ({
  id: 1,
  source: 'openai_api',
  conversation_id: '3fa85f64-5717-4562-b3fc-2c963f66afa6',
  title: null,
  user_id: 12,
  is_valid: true,
  is_public: false,
  current_model: 'gpt_3_5',
  create_time: '2026-11-23T10:00:00.000Z',
  update_time: '2026-11-23T10:05:00.000Z',
  pinned_at: null,
  username: 'alice',
  ...over,
});

const rows: ConversationRead[] = [
  conversation({}),
  conversation({ id: 2, conversation_id: '9b2f3c1e-0000-4000-8000-000000000002', title: 'Trip plans' }),
  conversation({
    id: 3,
    conversation_id: '9b2f3c1e-0000-4000-8000-000000000003',
    user_id: null,
    username: null,
  }),
];

beforeEach(async () => {
  installDomStubs();
  vi.stubGlobal(
    'fetch',
    vi.fn().mockImplementation(
      async () =>
        new Response(JSON.stringify({ code: 200, message: 'tips.requestSuccess', result: rows }), {
          status: 200,
          headers: { 'content-type': 'application/json', 'x-total-count': String(rows.length) },
        }),
    ),
  );
});
afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
});

function renderPage() {
  const client = new QueryClient({ defaultOptions: { queries: { retry: false } } });
  render(
    <QueryClientProvider client={client}>
      <MantineProvider>
        <ConversationPage />
      </MantineProvider>
    </QueryClientProvider>,
  );
}

describe('ConversationPage', () => {
  it.each([
    [
      'en-US',
      'Actions for Untitled conversation of alice, ',
      'Actions for Untitled conversation of Unassigned, ',
    ],
    ['zh-CN', 'alice 于 2026', '未分配 于 2026'],
  ])(
    'names an untitled row’s controls by owner and start, never by id (%s)',
    async (language, owned, unowned) => {
      await i18n.changeLanguage(language);
      renderPage();
      await screen.findByText('Trip plans');
      const labels = screen
        .getAllByRole('button')
        .map((b) => b.getAttribute('aria-label') ?? '')
        .join('\n');
      expect(labels).toContain(owned);
      expect(labels).toContain(unowned);
      expect(labels).toContain('Trip plans');
      for (const row of rows) expect(labels).not.toContain(row.conversation_id);
    },
  );
});
