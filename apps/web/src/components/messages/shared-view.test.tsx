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

function renderMessages(shared: boolean) {
  render(
    <QueryClientProvider client={new QueryClient()}>
      <MantineProvider>
        <SharedViewContext.Provider value={shared}>
          <PrintableMessages groups={groupMessages([question])} model="gpt_4" userMarkdown={false} />
        </SharedViewContext.Provider>
      </MantineProvider>
    </QueryClientProvider>,
  );
}

describe('the shared view', () => {
  it('names images and attachments without loading or linking the owner’s files', () => {
    renderMessages(true);
    expect(screen.getByText('What is this?')).toBeTruthy();
    expect(screen.getByTestId('image-placeholder').textContent).toBe('[Image: Uploaded image]');
    expect(screen.getByText('notes.pdf')).toBeTruthy();
    expect(document.querySelector('img')).toBeNull();
    expect(document.body.innerHTML).not.toContain('/api/files');
  });

  it('loads them as usual elsewhere', () => {
    renderMessages(false);
    expect(screen.queryByTestId('image-placeholder')).toBeNull();
    expect(document.body.innerHTML).toContain('/api/files/openai-web/file-secret1/content');
  });
});
