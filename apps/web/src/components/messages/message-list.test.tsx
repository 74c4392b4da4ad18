import { MantineProvider } from '@mantine/core';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { cleanup, render, waitFor } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { i18n } from '../../i18n';
import { groupMessages } from '../../lib/conversation/history';
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

describe('the message list', () => {
  it('renders the latest messages from its first render: the first messages never enter the page', async () => {
    // A list 600 px high (jsdom has no layout).
    vi.spyOn(HTMLElement.prototype, 'clientHeight', 'get').mockReturnValue(600);
    vi.spyOn(HTMLElement.prototype, 'clientWidth', 'get').mockReturnValue(800);
    // Rows of 100 px.
    vi.spyOn(HTMLElement.prototype, 'offsetHeight', 'get').mockImplementation(function (this: HTMLElement) {
      return this.hasAttribute('data-index') ? 100 : 0;
    });
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
    render(
      <QueryClientProvider client={new QueryClient()}>
        <MantineProvider>
          <MessageList groups={groups} model="gpt_4" userMarkdown={false} resetKey="c1" />
        </MantineProvider>
      </QueryClientProvider>,
    );
    await waitFor(() => expect(document.querySelectorAll('[data-index]').length).toBeGreaterThan(0));
    observer.takeRecords().forEach(note);
    observer.disconnect();
    const indexes = [...seen].map(Number);
    expect(indexes.length).toBeGreaterThan(0);
    expect(Math.min(...indexes)).toBeGreaterThan(groups.length - 20);
    expect(indexes).toContain(groups.length - 1);
  });
});
