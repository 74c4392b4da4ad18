import { describe, expect, it } from 'vitest';
import { apiPaths, isSafeRedirect } from './paths';

describe('isSafeRedirect', () => {
  it('accepts a path on this site, with its query and hash', () => {
    for (const target of ['/', '/conv/abc', '/conversation?id=x#m1', '/admin/user?q=a%2Fb'])
      expect(isSafeRedirect(target), target).toBe(true);
  });

  it('refuses whatever a browser would take to another site, or no path at all', () => {
    for (const target of [
      null,
      undefined,
      '',
      'conv',
      'https://evil.example/',
      '//evil.example',
      '/\\evil.example',
      '/\t/evil.example',
      '/\n/evil.example',
      '/\r/evil.example',
      '/ok\\..\\..',
      '/\u0000x',
    ])
      expect(isSafeRedirect(target), JSON.stringify(target)).toBe(false);
  });
});

describe('apiPaths.renameConversation', () => {
  it('sends the title, a blank one too (the conversation becomes untitled), encoded', () => {
    expect(apiPaths.renameConversation('c1', '')).toBe('/api/conv/c1?title=');
    expect(apiPaths.renameConversation('c1', 'A&B 计划')).toBe('/api/conv/c1?title=A%26B+%E8%AE%A1%E5%88%92');
  });
});
