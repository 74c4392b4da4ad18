import { describe, expect, it } from 'vitest';
import { resolveAssetUrl } from './assets';

describe('resolveAssetUrl', () => {
  it('maps file-service pointers to the server and keeps http(s)', () => {
    expect(resolveAssetUrl('file-service://file-abc123')).toBe('/api/files/openai-web/file-abc123/content');
    expect(resolveAssetUrl('https://x.example/a.png')).toBe('https://x.example/a.png');
    expect(resolveAssetUrl('data:image/png;base64,AAAA')).toBe('data:image/png;base64,AAAA');
  });

  it("on a share link's page, maps them to the link's own file route", () => {
    expect(resolveAssetUrl('file-service://file-abc123', 'tok_en')).toBe(
      '/api/share/tok_en/files/file-abc123',
    );
    expect(resolveAssetUrl('https://x.example/a.png', 'tok_en')).toBe('https://x.example/a.png');
    expect(resolveAssetUrl('file-service://../../etc', 'tok_en')).toBeNull();
  });

  it('refuses anything else', () => {
    expect(resolveAssetUrl('javascript:alert(1)')).toBeNull();
    expect(resolveAssetUrl('data:text/html;base64,AAAA')).toBeNull();
    expect(resolveAssetUrl('file-service://../../etc')).toBeNull();
    expect(resolveAssetUrl(null)).toBeNull();
  });
});
