import { MantineProvider } from '@mantine/core';
import { ModalsProvider } from '@mantine/modals';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { act, cleanup, fireEvent, render, screen, within } from '@testing-library/react';
import { useState } from 'react';
import type { ComponentProps } from 'react';
import { afterEach, beforeEach, describe, expect, it, onTestFinished, vi } from 'vitest';
import type { ConversationRead } from '@cc/contracts';
import { i18n } from '../../../i18n';
import { installDomStubs } from '../../../test/dom-stubs';
import { ConversationList } from './conversation-list';

const NOW = new Date(2026, 4, 20, 15, 0); // 20 May 2026, 15:00 local

function conv(n: number, update: Date, extra: Partial<ConversationRead> = {}): ConversationRead {
  return {
    id: n,
    source: 'openai_web',
    conversation_id: `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`,
    title: `Chat ${n}`,
    user_id: 1,
    is_valid: true,
    is_public: false,
    current_model: 'gpt_4',
    create_time: update.toISOString(),
    update_time: update.toISOString(),
    pinned_at: null,
    ...extra,
  };
}

const hoursAgo = (h: number) => new Date(NOW.getTime() - h * 3_600_000);
// The first page as the server sends it: pinned first, then newest first; 50 rows, so there is more.
const firstPage: ConversationRead[] = [
  conv(1, hoursAgo(24 * 40), { pinned_at: hoursAgo(1).toISOString(), title: 'Pinned plan' }),
  conv(2, hoursAgo(1), { source: 'openai_api', current_model: 'text-davinci-002-render-sha' }),
  conv(3, hoursAgo(20)),
  ...Array.from({ length: 47 }, (_, i) => conv(10 + i, hoursAgo(24 * 3 + i * 12))),
];
const secondPage = [conv(100, hoursAgo(24 * 60), { title: 'Last one' })];

type Call = { method: string; url: string; body: unknown };
let calls: Call[];
/** What the list request answers instead of the two pages, when set. */
let listed: ConversationRead[] | null;
const ok = (result: unknown) =>
  new Response(JSON.stringify({ code: 200, message: 'tips.requestSuccess', result }), { status: 200 });

beforeEach(async () => {
  vi.useFakeTimers({ toFake: ['Date'] });
  vi.setSystemTime(NOW);
  installDomStubs();
  await i18n.changeLanguage('en-US');
  calls = [];
  listed = null;
  vi.stubGlobal(
    'fetch',
    vi.fn((url: string, init: RequestInit = {}) => {
      const method = init.method ?? 'GET';
      calls.push({ method, url, body: typeof init.body === 'string' ? JSON.parse(init.body) : undefined });
      if (method === 'PUT') return Promise.resolve(ok({ ...firstPage[3], pinned_at: NOW.toISOString() }));
      return Promise.resolve(ok(listed ?? (url.includes('after=') ? secondPage : firstPage)));
    }),
  );
});
afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
  vi.useRealTimers();
});

/** The list, with a draft the page drops when the list discards it. */
function ListWithDraft({
  draft: initialDraft,
  ...props
}: Omit<ComponentProps<typeof ConversationList>, 'draftTitle' | 'onDiscardDraft'> & {
  draft: string | null | undefined;
}) {
  const [draft, setDraft] = useState(initialDraft);
  return <ConversationList {...props} draftTitle={draft} onDiscardDraft={() => setDraft(null)} />;
}

function renderList(
  draftTitle?: string | null,
  selectedId: string | null = null,
  onSelect = () => {},
  onOpenResult: (conversationId: string, messageId: string | null) => void = () => undefined,
) {
  render(
    <QueryClientProvider client={new QueryClient({ defaultOptions: { queries: { retry: false } } })}>
      <MantineProvider>
        <ModalsProvider>
          <ListWithDraft
            selectedId={selectedId}
            onSelect={onSelect}
            onOpenResult={onOpenResult}
            onDeleted={() => undefined}
            disabled={false}
            draft={draftTitle}
          />
        </ModalsProvider>
      </MantineProvider>
    </QueryClientProvider>,
  );
}

/** jsdom has no scrollIntoView: a stub, removed at the end of the test. */
function stubScrollIntoView() {
  const scrolled = vi.fn();
  Element.prototype.scrollIntoView = scrolled;
  onTestFinished(() => {
    delete (Element.prototype as Partial<Element>).scrollIntoView;
  });
  return scrolled;
}

const headings = () => screen.getAllByRole('heading', { level: 2 }).map((h) => h.textContent);

describe('ConversationList', () => {
  it('shows one page in named sections, pinned first, with each model named', async () => {
    renderList();
    await screen.findByText('Pinned plan');
    expect(calls[0]?.url).toBe('/api/conv?limit=50');
    expect(headings()).toEqual(['Pinned', 'Today', 'Yesterday', 'Previous 7 days', 'Previous 30 days']);
    const pinned = screen.getByRole('region', { name: 'Pinned' });
    expect(
      within(pinned)
        .getAllByRole('listitem')
        .map((li) => li.textContent),
    ).toEqual(['Pinned plan']);
    const today = screen.getByRole('region', { name: 'Today' });
    // An unknown model code is never shown raw.
    expect(within(today).getByRole('img', { name: 'Unknown model · OpenAI API' })).toBeTruthy();
    const yesterday = screen.getByRole('region', { name: 'Yesterday' });
    expect(within(yesterday).getByRole('img', { name: 'GPT-4 · OpenAI Web' }).getAttribute('title')).toBe(
      'GPT-4 · OpenAI Web',
    );

    await act(() => i18n.changeLanguage('zh-CN'));
    expect(headings()).toEqual(['置顶', '今天', '昨天', '过去 7 天', '过去 30 天']);
  });

  it('loads the next page after the last conversation shown, into its month', async () => {
    renderList();
    await screen.findByText('Pinned plan');
    expect(screen.getAllByRole('listitem')).toHaveLength(50);
    fireEvent.click(screen.getByRole('button', { name: 'Load more' }));
    await screen.findByText('Last one');
    expect(calls[1]?.url).toBe(`/api/conv?limit=50&after=${firstPage[49]!.conversation_id}`);
    expect(headings().at(-1)).toBe('March 2026');
    // A short page is the last one.
    expect(screen.queryByRole('button', { name: 'Load more' })).toBeNull();
  });

  it('shows each title, and a search result’s title and text, in their own direction', async () => {
    const arabic = 'ما هو الطقس اليوم؟ (سؤال مهم!)';
    listed = [conv(5, hoursAgo(1), { title: arabic })];
    renderList('مسودة');
    const title = await screen.findByText(arabic);
    expect(title.getAttribute('dir')).toBe('auto');
    expect(screen.getByText('مسودة').getAttribute('dir')).toBe('auto');

    listed = [
      {
        conversation_id: conv(5, NOW).conversation_id,
        title: arabic,
        source: 'openai_web',
        model: 'gpt_4',
        message_id: 'm1',
        role: 'user',
        snippet: arabic,
        highlights: [[6, 11]],
        time: NOW.toISOString(),
      },
    ] as unknown as ConversationRead[];
    fireEvent.change(screen.getByTestId('conversation-search'), { target: { value: 'الطقس' } });
    const result = await screen.findByTestId('search-result', {}, { timeout: 3000 });
    expect(within(result).getByText(arabic).getAttribute('dir')).toBe('auto');
    const snippet = result.querySelector('mark')!.parentElement!;
    expect(snippet.textContent).toBe(arabic);
    expect(snippet.getAttribute('dir')).toBe('auto');
  });

  it('clearing the search (its Clear button, by keyboard) leaves the focus in the search box', async () => {
    renderList();
    await screen.findByText('Pinned plan');
    const search = screen.getByTestId('conversation-search');
    fireEvent.change(search, { target: { value: 'plan' } });
    const clear = screen.getByRole('button', { name: 'Clear' });
    // Enter on a focused button clicks it.
    clear.focus();
    fireEvent.click(clear);
    expect((search as HTMLInputElement).value).toBe('');
    expect(screen.queryByRole('button', { name: 'Clear' })).toBeNull();
    expect(document.activeElement).toBe(search);
  });

  it('lists an untitled draft instead of saying there are no conversations', async () => {
    listed = [];
    renderList('');
    expect(screen.getByTestId('draft-item').textContent).toBe('New conversation');
    // Loaded (the placeholder rows gone): the draft is the one row.
    await vi.waitFor(() => expect(document.querySelector('.mantine-Skeleton-root')).toBeNull());
    expect(calls).toHaveLength(1);
    expect(screen.queryByText('No conversations yet')).toBeNull();
    cleanup();
    renderList(null);
    await screen.findByText('No conversations yet');
    expect(screen.queryByTestId('draft-item')).toBeNull();
  });

  it('is one Tab stop, moved through with the arrows, Home and End, the row’s actions reached from the row', async () => {
    const scrolled = stubScrollIntoView();
    const onSelect = vi.fn();
    renderList(null, firstPage[2]!.conversation_id, onSelect);
    await screen.findByText('Pinned plan');
    const rowButton = (title: string) => screen.getByText(title).closest('button')!;
    const tabStops = () =>
      Array.from(screen.getByTestId('conversation-list').querySelectorAll('[tabindex="0"]')).map(
        (el) => el.textContent,
      );
    // The open conversation holds the single Tab stop; no ⋮ button is one.
    expect(tabStops()).toEqual(['Chat 3']);
    expect(rowButton('Chat 3').getAttribute('aria-keyshortcuts')).toContain('ArrowDown');
    expect(rowButton('Chat 3').getAttribute('aria-describedby')).toBeTruthy();
    for (const menu of screen.getAllByTestId('conversation-menu'))
      expect(menu.getAttribute('tabindex')).toBe('-1');

    rowButton('Chat 3').focus();
    fireEvent.keyDown(document.activeElement!, { key: 'ArrowDown' });
    expect(document.activeElement).toBe(rowButton('Chat 10'));
    expect(scrolled).toHaveBeenCalledWith({ block: 'nearest' });
    expect(tabStops()).toEqual(['Chat 10']);
    fireEvent.keyDown(document.activeElement!, { key: 'ArrowUp' });
    fireEvent.keyDown(document.activeElement!, { key: 'ArrowUp' });
    expect(document.activeElement).toBe(rowButton('Chat 2'));
    fireEvent.keyDown(document.activeElement!, { key: 'Home' });
    expect(document.activeElement).toBe(rowButton('Pinned plan'));
    fireEvent.keyDown(document.activeElement!, { key: 'End' });
    expect(document.activeElement).toBe(rowButton('Chat 56'));
    // Past the last row, ArrowDown loads the next page.
    fireEvent.keyDown(document.activeElement!, { key: 'ArrowDown' });
    await screen.findByText('Last one');
    fireEvent.keyDown(document.activeElement!, { key: 'ArrowDown' });
    expect(document.activeElement).toBe(rowButton('Last one'));

    fireEvent.keyDown(document.activeElement!, { key: 'ArrowRight' });
    expect(document.activeElement).toBe(screen.getByRole('button', { name: 'Actions for Last one' }));
    fireEvent.keyDown(document.activeElement!, { key: 'ArrowLeft' });
    expect(document.activeElement).toBe(rowButton('Last one'));
    fireEvent.keyDown(document.activeElement!, { key: 'F10', shiftKey: true });
    expect(await screen.findByRole('menuitem', { name: 'Rename' })).toBeTruthy();
    expect(onSelect).not.toHaveBeenCalled();
  });

  it('keeps one Tab stop with a draft: its ✕ is reached from its row, and Load more is not a stop either', async () => {
    stubScrollIntoView();
    renderList('My draft');
    await screen.findByText('Pinned plan');
    const list = screen.getByTestId('conversation-list');
    const tabStops = () => Array.from(list.querySelectorAll('[tabindex="0"]')).map((el) => el.textContent);
    const draftRow = () => screen.getByText('My draft').closest('button')!;
    const discard = () => screen.getByRole('button', { name: 'Discard the new conversation' });
    // The draft is the open page: its row holds the Tab stop; its ✕ and Load more are not stops.
    expect(tabStops()).toEqual(['My draft']);
    expect(draftRow().getAttribute('aria-current')).toBe('page');
    expect(draftRow().getAttribute('aria-describedby')).toBeTruthy();
    expect(discard().getAttribute('tabindex')).toBe('-1');
    expect(screen.getByRole('button', { name: 'Load more' }).getAttribute('tabindex')).toBe('-1');

    draftRow().focus();
    fireEvent.keyDown(document.activeElement!, { key: 'ArrowDown' });
    expect(document.activeElement).toBe(screen.getByText('Pinned plan').closest('button'));
    fireEvent.keyDown(document.activeElement!, { key: 'Home' });
    expect(document.activeElement).toBe(draftRow());
    fireEvent.keyDown(document.activeElement!, { key: 'ArrowRight' });
    expect(document.activeElement).toBe(discard());
    fireEvent.keyDown(document.activeElement!, { key: 'ArrowLeft' });
    expect(document.activeElement).toBe(draftRow());
    // A menu key does not press the ✕ (it is no menu).
    fireEvent.keyDown(document.activeElement!, { key: 'F10', shiftKey: true });
    expect(screen.getByText('My draft')).toBeTruthy();

    // Discarded from the keyboard: the focus goes to the first row, now the Tab stop.
    fireEvent.keyDown(document.activeElement!, { key: 'ArrowRight' });
    fireEvent.click(discard());
    expect(screen.queryByTestId('draft-item')).toBeNull();
    expect(document.activeElement).toBe(screen.getByText('Pinned plan').closest('button'));
    expect(tabStops()).toEqual(['Pinned plan']);
  });

  it('search results are one Tab stop too: arrows, Home and End move, Enter opens', async () => {
    stubScrollIntoView();
    const onOpenResult = vi.fn();
    renderList(null, null, () => {}, onOpenResult);
    await screen.findByText('Pinned plan');
    const hit = (n: number, message: string | null) => ({
      conversation_id: conv(n, NOW).conversation_id,
      title: `Found ${n}`,
      source: 'openai_web',
      model: 'gpt_4',
      message_id: message,
      role: message ? 'user' : null,
      snippet: `Found ${n}`,
      highlights: [[0, 5]],
      time: NOW.toISOString(),
    });
    listed = [hit(1, null), hit(1, 'm1'), hit(2, 'm2')] as unknown as ConversationRead[];
    fireEvent.change(screen.getByTestId('conversation-search'), { target: { value: 'found' } });
    await vi.waitFor(() => expect(screen.getAllByTestId('search-result')).toHaveLength(3), { timeout: 3000 });
    const results = () => screen.getAllByTestId('search-result');
    const tabStops = () =>
      Array.from(screen.getByTestId('search-results').querySelectorAll('[tabindex="0"]')).map(
        (el) => el.getAttribute('data-message-id') ?? 'title',
      );
    expect(tabStops()).toEqual(['title']);
    const hint = document.getElementById(results()[0]!.getAttribute('aria-describedby')!);
    expect(hint?.textContent).toBe(
      'Up and down arrows: move between results; Home, End: first, last; Enter: open',
    );
    expect(results()[0]!.getAttribute('aria-keyshortcuts')).toBe('ArrowUp ArrowDown Home End');

    results()[0]!.focus();
    fireEvent.keyDown(document.activeElement!, { key: 'ArrowDown' });
    expect(document.activeElement).toBe(results()[1]);
    expect(tabStops()).toEqual(['m1']);
    fireEvent.keyDown(document.activeElement!, { key: 'End' });
    expect(document.activeElement).toBe(results()[2]);
    fireEvent.keyDown(document.activeElement!, { key: 'ArrowDown' });
    expect(document.activeElement).toBe(results()[2]);
    fireEvent.keyDown(document.activeElement!, { key: 'Home' });
    expect(document.activeElement).toBe(results()[0]);
    fireEvent.keyDown(document.activeElement!, { key: 'ArrowUp' });
    expect(document.activeElement).toBe(results()[0]);
    fireEvent.keyDown(document.activeElement!, { key: 'ArrowDown' });
    fireEvent.click(document.activeElement!);
    expect(onOpenResult).toHaveBeenCalledWith(conv(1, NOW).conversation_id, 'm1');

    await act(() => i18n.changeLanguage('zh-CN'));
    expect(hint?.textContent).toBe('上下方向键：在结果间移动；Home、End：第一个、最后一个；Enter：打开');
  });

  it('pins from the row’s menu and loads the list again', async () => {
    renderList();
    await screen.findByText('Pinned plan');
    fireEvent.click(screen.getByRole('button', { name: 'Actions for Chat 10' }));
    fireEvent.click(await screen.findByRole('menuitem', { name: 'Pin' }));
    await vi.waitFor(() => expect(calls.filter((c) => c.method === 'GET')).toHaveLength(2));
    expect(calls.find((c) => c.method === 'PUT')).toEqual({
      method: 'PUT',
      url: `/api/conv/${firstPage[3]!.conversation_id}/pin`,
      body: { pinned: true },
    });
  });
});
