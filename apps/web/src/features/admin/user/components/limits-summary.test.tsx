import { MantineProvider } from '@mantine/core';
import { cleanup, render, screen } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { i18n } from '../../../../i18n';
import { adminUser } from '../../shared/fixtures';
import { installDomStubs } from '../../shared/test-dom';
import { LimitsSummary } from './limits-summary';

beforeEach(async () => {
  installDomStubs();
  await i18n.changeLanguage('en-US');
});
afterEach(cleanup);

function show(setting: ReturnType<typeof adminUser>['setting']) {
  render(
    <MantineProvider>
      <LimitsSummary setting={setting} />
    </MantineProvider>,
  );
}

function counts(source: 'openai_web' | 'openai_api'): string | null {
  return screen.getByTestId(`limits-${source}`).querySelector('p')?.textContent ?? null;
}

describe('LimitsSummary', () => {
  it('names only the counts that are limited, and says so briefly when neither is', () => {
    const user = adminUser();
    user.setting.openai_web.total_ask_count = -1;
    user.setting.openai_web.max_conv_count = -1;
    user.setting.openai_api.allow_to_use = true;
    user.setting.openai_api.total_ask_count = 12;
    user.setting.openai_api.max_conv_count = -1;
    show(user.setting);
    // Once "Unlimited asks left · max Unlimited conversations": wider than the column, it ran under the next one.
    expect(counts('openai_web')).toBe('Unlimited asks');
    expect(counts('openai_api')).toBe('12 asks left');
    cleanup();

    user.setting.openai_api.max_conv_count = 3;
    show(user.setting);
    expect(counts('openai_api')).toBe('12 asks left · max 3 conversations');
    // Cut short with an ellipsis when the column is narrow: the whole text is in its title.
    expect(screen.getByTestId('limits-openai_api').querySelector('p')?.getAttribute('title')).toBe(
      '12 asks left · max 3 conversations',
    );
  });
});
