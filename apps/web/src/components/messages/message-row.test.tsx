import { MantineProvider } from '@mantine/core';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { act, cleanup, fireEvent, render, screen } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { i18n } from '../../i18n';
import { groupMessages } from '../../lib/conversation/history';
import { formatDateTime } from '../../lib/format';
import { installDomStubs } from '../../test/dom-stubs';
import { web } from '../../test/fixtures';
import { MessageRow } from './message-row';

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
});
