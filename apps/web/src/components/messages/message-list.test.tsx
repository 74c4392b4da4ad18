import { MantineProvider } from '@mantine/core';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { act, cleanup, render, screen, waitFor } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { i18n } from '../../i18n';
import { groupMessages } from '../../lib/conversation/history';
import { loadMarkdownEngine } from '../../lib/markdown/load-engine';
import { installDomStubs } from '../../test/dom-stubs';
import { web } from '../../test/fixtures';
import { MessageList } from './message-list';

beforeEach(async () => {
  installDomStubs();
  await i18n.changeLanguage('en-US');
});
afterEach(() => {
  cleanup();
  vi.restoreAllMocks();
  vi.unstubAllGlobals();
});

/** A conversation of `count` questions and answers, oldest first. */
function conversation(count: number) {
  const messages = [];
  let parent: string | null = null;
  for (let i = 0; i < count; i++) {
    const id = `m${i}`;
    messages.push(web(id, i % 2 === 0 ? 'user' : 'assistant', `Message number ${i}`, { parent }));
    parent = id;
  }
  return groupMessages(messages);
}

/** A list 600 px high with rows of 100 px (jsdom has no layout). */
function stubSizes() {
  vi.spyOn(HTMLElement.prototype, 'clientHeight', 'get').mockReturnValue(600);
  vi.spyOn(HTMLElement.prototype, 'clientWidth', 'get').mockReturnValue(800);
  vi.spyOn(HTMLElement.prototype, 'offsetHeight', 'get').mockImplementation(function (this: HTMLElement) {
    return this.hasAttribute('data-index') ? 100 : 0;
  });
}

function renderList(groups: ReturnType<typeof conversation>, userMarkdown = false) {
  return render(
    <QueryClientProvider client={new QueryClient()}>
      <MantineProvider>
        <MessageList groups={groups} model="gpt_4" userMarkdown={userMarkdown} resetKey="c1" />
      </MantineProvider>
    </QueryClientProvider>,
  );
}

describe('the message list', () => {
  it('renders the latest messages from its first render: the first messages never enter the page', async () => {
    stubSizes();
    const groups = conversation(400);
    const seen = new Set<string>();
    const observer = new MutationObserver((records) => records.forEach(note));
    const note = (record: MutationRecord) =>
      record.addedNodes.forEach((node) =>
        (node instanceof Element ? [node, ...node.querySelectorAll('[data-index]')] : []).forEach((el) => {
          const index = el.getAttribute('data-index');
          if (index !== null) seen.add(index);
        }),
      );
    observer.observe(document.body, { childList: true, subtree: true });
    renderList(groups);
    await waitFor(() => expect(document.querySelectorAll('[data-index]').length).toBeGreaterThan(0));
    observer.takeRecords().forEach(note);
    observer.disconnect();
    const indexes = [...seen].map(Number);
    expect(indexes.length).toBeGreaterThan(0);
    expect(Math.min(...indexes)).toBeGreaterThan(groups.length - 20);
    expect(indexes).toContain(groups.length - 1);
  });

  it('renders the markdown of the rows in view at once, and of the rows around them when the browser is idle', async () => {
    await loadMarkdownEngine();
    stubSizes();
    const idle: (() => void)[] = [];
    vi.stubGlobal('requestIdleCallback', (task: () => void) => idle.push(task));
    vi.stubGlobal('cancelIdleCallback', () => undefined);
    const groups = conversation(40);
    // Questions rendered as markdown too: every row has markdown to render.
    renderList(groups, true);
    const rows = () => [...document.querySelectorAll<HTMLElement>('[data-index]')];
    await waitFor(() => expect(rows().length).toBeGreaterThan(6));
    const rendered = (row: HTMLElement) => row.querySelector('.cc-markdown') !== null;
    // The latest answer, at the bottom of the view, is rendered; the rows above the view wait.
    const last = rows().find((row) => row.dataset.index === String(groups.length - 1))!;
    expect(rendered(last)).toBe(true);
    const waiting = rows().filter((row) => row.querySelector('.cc-plain-text'));
    expect(waiting.length).toBeGreaterThan(0);
    expect(waiting.every((row) => Number(row.dataset.index) < groups.length - 4)).toBe(true);
    await act(async () => idle.splice(0).forEach((task) => task()));
    expect(rows().filter((row) => row.querySelector('.cc-plain-text'))).toHaveLength(0);
  });

  it('keeps following content that grows below the reader; only scrolling up away from the end stops it', async () => {
    stubSizes();
    renderList(conversation(10));
    const list = document.querySelector<HTMLElement>('[data-testid=message-list]')!;
    let top = 400;
    let height = 1000;
    Object.defineProperty(list, 'scrollTop', {
      configurable: true,
      get: () => top,
      set: (value: number) => (top = Math.max(0, Math.min(value, height - 600))),
    });
    Object.defineProperty(list, 'scrollHeight', { configurable: true, get: () => height });
    const scrolled = () => act(() => void list.dispatchEvent(new Event('scroll')));
    scrolled();
    // An answer grew by 300 px and a scroll event came before the list caught up: still the reader's place.
    height = 1300;
    scrolled();
    expect(screen.queryByRole('button', { name: 'Jump to the latest message' })).toBeNull();
    top = 700;
    scrolled();
    // The reader scrolls up, away from the end: no longer followed.
    top = 500;
    scrolled();
    expect(await screen.findByRole('button', { name: 'Jump to the latest message' })).toBeTruthy();
  });
});
