import { MantineProvider } from '@mantine/core';
import { cleanup, fireEvent, render, screen } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { MAX_ASK_TEXT_CHARS } from '@cc/contracts';
import { i18n } from '../../../i18n';
import { installDomStubs } from '../../../test/dom-stubs';
import { ChatInput } from './chat-input';

function box(value: string, onSend = vi.fn(), notice?: string) {
  render(
    <MantineProvider>
      <ChatInput
        value={value}
        onChange={() => undefined}
        onSend={onSend}
        onStop={() => undefined}
        busy={false}
        disabled={false}
        notice={notice}
      />
    </MantineProvider>,
  );
  return onSend;
}

const sendButton = () => screen.getByTestId<HTMLButtonElement>('send-button');

beforeEach(async () => {
  installDomStubs();
  await i18n.changeLanguage('en-US');
});
afterEach(cleanup);

describe('the message box and the length limit', () => {
  it('a message over the limit cannot be sent and says why, with its count and the limit', () => {
    const onSend = box('x'.repeat(MAX_ASK_TEXT_CHARS + 1));
    expect(sendButton().disabled).toBe(true);
    const input = screen.getByTestId('chat-input');
    expect(input.getAttribute('aria-invalid')).toBe('true');
    expect(
      screen.getByText('100,001 of at most 100,000 characters: shorten the message to send it'),
    ).toBeTruthy();
    fireEvent.keyDown(input, { key: 'Enter' });
    expect(onSend).not.toHaveBeenCalled();
  });

  it('in Chinese too', async () => {
    await i18n.changeLanguage('zh-CN');
    box('x'.repeat(MAX_ASK_TEXT_CHARS + 1));
    expect(screen.getByText('100,001 个字符，最多 100,000 个：请缩短消息后再发送')).toBeTruthy();
  });

  it('a message at the limit is sent', () => {
    const onSend = box('x'.repeat(MAX_ASK_TEXT_CHARS));
    expect(sendButton().disabled).toBe(false);
    expect(screen.getByTestId('chat-input').getAttribute('aria-invalid')).not.toBe('true');
    fireEvent.keyDown(screen.getByTestId('chat-input'), { key: 'Enter' });
    expect(onSend).toHaveBeenCalledTimes(1);
  });
});

describe('the message box when nothing can be sent', () => {
  it('says why under the box and sends neither by the button nor by the key; the text can still be typed', () => {
    const onSend = box('hello', vi.fn(), 'No asks left');
    expect(sendButton().disabled).toBe(true);
    const notice = screen.getByTestId('send-notice');
    expect(notice.textContent).toBe('No asks left');
    const input = screen.getByTestId<HTMLTextAreaElement>('chat-input');
    expect(input.disabled).toBe(false);
    expect(input.getAttribute('aria-describedby')).toContain(notice.id);
    fireEvent.keyDown(input, { key: 'Enter' });
    expect(onSend).not.toHaveBeenCalled();
  });
});

describe('the message box and right-to-left text', () => {
  it('lets the browser set the direction from what is typed (an Arabic question reads right to left)', () => {
    box('ما هو الطقس اليوم؟');
    expect(screen.getByTestId('chat-input').style.unicodeBidi).toBe('plaintext');
  });
});
