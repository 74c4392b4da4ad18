import { MantineProvider } from '@mantine/core';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { cleanup, render, screen } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { i18n } from '../../i18n';
import { groupMessages } from '../../lib/conversation/history';
import { installDomStubs } from '../../test/dom-stubs';
import { web } from '../../test/fixtures';
import { SharedViewContext } from './conversation-context';
import { PrintableMessages } from './message-list';

beforeEach(async () => {
  installDomStubs();
  await i18n.changeLanguage('en-US');
});
afterEach(cleanup);

const question = web('q1', 'user', null, {
  content: {
    content_type: 'multimodal_text',
    parts: [
      { content_type: 'image_asset_pointer', asset_pointer: 'file-service://file-secret1' },
      'What is this?',
    ],
  },
  metadata: { attachments: [{ name: 'notes.pdf', id: 'file-secret2', size: 10 }] },
});

const answer = web('a1', 'assistant', 'A cat.', { parent: 'q1' });
/** A question as links made before files were shared keep it (attachment ids dropped): named, not linked. */
const oldShare = web('q2', 'user', 'And this?', {
  parent: 'a1',
  metadata: { attachments: [{ name: 'old.pdf', id: '', size: 10 }] },
});

function renderMessages(shareToken: string | null) {
  render(
    <QueryClientProvider client={new QueryClient()}>
      <MantineProvider>
        <SharedViewContext.Provider value={shareToken}>
          <PrintableMessages
            groups={groupMessages([question, answer, oldShare])}
            model="gpt_4"
            userMarkdown={false}
          />
        </SharedViewContext.Provider>
      </MantineProvider>
    </QueryClientProvider>,
  );
}

const TOKEN = 'Tok_en-1234567890abcdefghijklmn';

describe('the shared view', () => {
  it('loads images and attachments through the link, never through the owner’s file routes', () => {
    renderMessages(TOKEN);
    expect(screen.getByText('What is this?')).toBeTruthy();
    const image = screen.getByTestId('message-image');
    expect(image.getAttribute('src')).toBe(`/api/share/${TOKEN}/files/file-secret1`);
    const chip = screen.getByTestId('attachment-chip');
    expect(chip.textContent).toContain('notes.pdf');
    expect(chip.getAttribute('href')).toBe(`/api/share/${TOKEN}/files/file-secret2`);
    expect(chip.getAttribute('download')).toBe('notes.pdf');
    // An attachment without an id is named, not linked.
    expect(screen.getByText('old.pdf').closest('a')).toBeNull();
    expect(screen.getAllByTestId('attachment-chip')).toHaveLength(1);
    expect(document.body.innerHTML).not.toContain('/api/files');
  });

  it('loads them through the owner’s routes elsewhere', () => {
    renderMessages(null);
    expect(screen.getByTestId('message-image').getAttribute('src')).toBe(
      '/api/files/openai-web/file-secret1/content',
    );
    expect(screen.getByTestId('attachment-chip').getAttribute('href')).toBe(
      '/api/files/openai-web/file-secret2/content',
    );
    expect(document.body.innerHTML).not.toContain('/api/share');
  });
});
