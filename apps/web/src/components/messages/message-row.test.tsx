import { MantineProvider } from '@mantine/core';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { act, cleanup, fireEvent, render, screen } from '@testing-library/react';
import type * as MantineCore from '@mantine/core';
import type { ComponentProps } from 'react';
import type { ChatMessage } from '@cc/contracts';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { i18n } from '../../i18n';
import { groupMessages } from '../../lib/conversation/history';
import { formatDateTime } from '../../lib/format';
import { installDomStubs } from '../../test/dom-stubs';
import { api, web } from '../../test/fixtures';
import { MessageActionsContext } from './message-actions';
import type { MessageActions } from './message-actions';
import { MessageRow } from './message-row';

/** Renders of Mantine's Avatar (the row's avatar resolves its colours on every render). */
const avatarRenders = vi.hoisted(() => ({ count: 0 }));
vi.mock('@mantine/core', async (importOriginal) => {
  const actual = await importOriginal<typeof MantineCore>();
  function Avatar(props: ComponentProps<typeof actual.Avatar>) {
    avatarRenders.count += 1;
    return <actual.Avatar {...props} />;
  }
  return { ...actual, Avatar };
});

beforeEach(async () => {
  installDomStubs();
  await i18n.changeLanguage('en-US');
});
afterEach(cleanup);

describe('a message row', () => {
  it('shows the full date and time of its message in the tooltip of its time', async () => {
    // A recent message: the row says how long ago; the tooltip gives the date.
    const answer = web('a1', 'assistant', 'Hello there', {
      create_time: new Date(Date.now() - 5 * 60_000).toISOString(),
    });
    const [group] = groupMessages([answer]);
    render(
      <QueryClientProvider client={new QueryClient()}>
        <MantineProvider
          theme={{ components: { Tooltip: { defaultProps: { transitionProps: { duration: 0 } } } } }}
        >
          <MessageRow group={group!} model="gpt_4" userMarkdown={false} />
        </MantineProvider>
      </QueryClientProvider>,
    );
    const full = formatDateTime(answer.create_time, 'en-US');
    expect(screen.queryByText(full)).toBeNull();
    const time = document.querySelector('.cc-row-footer span')!;
    await act(async () => {
      fireEvent.mouseEnter(time);
      await new Promise((resolve) => setTimeout(resolve, 0));
    });
    expect(await screen.findByText(full)).toBeTruthy();
  });

  it('while its answer streams, only the text re-renders: the avatar keeps its render', () => {
    const row = (text: string) => {
      const [group] = groupMessages([web('a1', 'assistant', text)]);
      return (
        <QueryClientProvider client={new QueryClient()}>
          <MantineProvider>
            <MessageRow group={group!} model="gpt_4" userMarkdown={false} />
          </MantineProvider>
        </QueryClientProvider>
      );
    };
    const view = render(row('Hel'));
    const before = avatarRenders.count;
    view.rerender(row('Hello, wor'));
    view.rerender(row('Hello, world'));
    expect(view.container.textContent).toContain('Hello, world');
    expect(avatarRenders.count).toBe(before);
  });

  it('shows a question typed right to left (not as markdown) in its own direction', () => {
    const text = 'ما هو الطقس اليوم؟ (سؤال مهم!)';
    const [group] = groupMessages([web('u1', 'user', text)]);
    const { container } = render(
      <QueryClientProvider client={new QueryClient()}>
        <MantineProvider>
          <MessageRow group={group!} model="gpt_4" userMarkdown={false} />
        </MantineProvider>
      </QueryClientProvider>,
    );
    const body = container.querySelector('.cc-plain-text');
    expect(body?.textContent).toBe(text);
    expect(body?.getAttribute('dir')).toBe('auto');
  });

  describe('editing a question', () => {
    const question = web('u1', 'user', 'What is the weather?');
    const renderQuestion = (actions: Partial<MessageActions> = {}) => {
      const [group] = groupMessages([question]);
      const value: MessageActions = {
        siblingsOf: (id) => [id],
        switchTo: () => undefined,
        lastAnswerGroupId: null,
        edit: () => undefined,
        ...actions,
      };
      return render(
        <QueryClientProvider client={new QueryClient()}>
          <MantineProvider>
            <MessageActionsContext.Provider value={value}>
              <MessageRow group={group!} model="gpt_4" userMarkdown={false} />
            </MessageActionsContext.Provider>
            <textarea data-testid="chat-input" aria-label="Message" />
          </MantineProvider>
        </QueryClientProvider>,
      );
    };
    const editBox = () => screen.getByRole<HTMLTextAreaElement>('textbox', { name: 'Edit question' });
    const openEdit = () => {
      const button = screen.getByTestId('edit-button');
      button.focus();
      fireEvent.click(button);
    };

    it('focuses the edit box, the caret at the end of the question', () => {
      renderQuestion();
      openEdit();
      const box = editBox();
      expect(document.activeElement).toBe(box);
      expect(box.selectionStart).toBe(box.value.length);
      expect(box.selectionEnd).toBe(box.value.length);
    });

    it('gives the focus back to the ✎ button on Cancel', () => {
      renderQuestion();
      openEdit();
      const cancel = screen.getByRole('button', { name: 'Cancel' });
      cancel.focus();
      fireEvent.click(cancel);
      expect(screen.queryByTestId('edit-question')).toBeNull();
      expect(document.activeElement).toBe(screen.getByTestId('edit-button'));
    });

    it('closes on Escape, the focus back on the ✎ button', () => {
      renderQuestion();
      openEdit();
      fireEvent.keyDown(editBox(), { key: 'Escape' });
      expect(screen.queryByTestId('edit-question')).toBeNull();
      expect(document.activeElement).toBe(screen.getByTestId('edit-button'));
    });

    it('sends the focus to the message box once the edited question is asked', () => {
      const edit = vi.fn();
      renderQuestion({ edit });
      openEdit();
      fireEvent.change(editBox(), { target: { value: 'And tomorrow?' } });
      fireEvent.click(screen.getByTestId('edit-submit'));
      expect(edit).toHaveBeenCalledWith(question, 'And tomorrow?');
      expect(document.activeElement).toBe(screen.getByTestId('chat-input'));
    });
  });

  describe('an answer that ended before it was complete', () => {
    const rowOf = (message: ChatMessage, live = false) => {
      const [group] = groupMessages([message]);
      return (
        <QueryClientProvider client={new QueryClient()}>
          <MantineProvider>
            <MessageRow group={group!} model="gpt_3_5" userMarkdown={false} live={live} />
          </MantineProvider>
        </QueryClientProvider>
      );
    };
    const note = () => screen.queryByTestId('answer-incomplete')?.textContent ?? null;
    const stopped = api('a1', 'assistant', 'Once upon', { metadata: { finish_reason: null } });
    const cut = api('a1', 'assistant', 'Once upon', { metadata: { finish_reason: 'length' } });

    it('says so in its footer, and why when that is known', () => {
      const view = render(rowOf(stopped));
      expect(note()).toBe('Answer incomplete (stopped or cut off)');
      view.rerender(rowOf(cut));
      expect(note()).toBe('Answer incomplete (length limit reached)');
    });

    it('in Chinese too', async () => {
      await i18n.changeLanguage('zh-CN');
      const view = render(rowOf(stopped));
      expect(note()).toBe('回答未完成（已停止或中断）');
      view.rerender(rowOf(cut));
      expect(note()).toBe('回答未完成（已达长度上限）');
    });

    it('says nothing of a complete answer, nor of the answer being received', () => {
      const view = render(rowOf(api('a1', 'assistant', 'The end.', { metadata: { finish_reason: 'stop' } })));
      expect(note()).toBeNull();
      view.rerender(rowOf(stopped, true));
      expect(note()).toBeNull();
      // No longer live (stopped): what it says of itself counts.
      view.rerender(rowOf(stopped));
      expect(note()).toBe('Answer incomplete (stopped or cut off)');
    });
  });
});
