import { MantineProvider } from '@mantine/core';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { cleanup, render, screen } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { PluginList } from '@cc/contracts';
import { i18n } from '../../i18n';
import { queryKeys } from '../../lib/query-keys';
import { installDomStubs } from '../../test/dom-stubs';
import { ConversationHeader } from './conversation-header';

beforeEach(async () => {
  installDomStubs();
  await i18n.changeLanguage('en-US');
});
afterEach(cleanup);

const INSTALLED: PluginList = {
  count: 2,
  items: [
    { id: 'plugin-0a1b2c3d-weather', namespace: 'weather', manifest: { name_for_human: 'Weather Now' } },
    { id: 'plugin-9f8e7d6c-maps', namespace: 'maps', manifest: null },
  ],
};

function renderHeader(pluginIds: string[], title = 'Trip') {
  const client = new QueryClient({ defaultOptions: { queries: { retry: false, staleTime: Infinity } } });
  client.setQueryData(queryKeys.installedPlugins, INSTALLED);
  render(
    <QueryClientProvider client={client}>
      <MantineProvider>
        <ConversationHeader title={title} source="openai_web" model="gpt_4_plugins" pluginIds={pluginIds} />
      </MantineProvider>
    </QueryClientProvider>,
  );
}

describe('ConversationHeader plugins', () => {
  it('names the plugins instead of listing their ids', () => {
    renderHeader(['plugin-0a1b2c3d-weather', 'plugin-9f8e7d6c-maps', 'plugin-deadbeef-gone']);
    const badges = screen.getAllByTestId('conversation-plugin').map((b) => b.textContent);
    // Human name, else namespace; a plugin uninstalled since shows as "Plugin".
    expect(badges).toEqual(['Weather Now', 'maps', 'Plugin']);
    expect(document.body.textContent).not.toContain('plugin-');
  });
});

describe('ConversationHeader title', () => {
  it('shows a right-to-left title in its own direction', () => {
    renderHeader([], 'ما هو الطقس اليوم؟');
    const title = screen.getByTestId('conversation-title');
    expect(title.textContent).toBe('ما هو الطقس اليوم؟');
    expect(title.getAttribute('dir')).toBe('auto');
  });
});
