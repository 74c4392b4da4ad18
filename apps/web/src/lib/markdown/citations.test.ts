import { describe, expect, it } from 'vitest';
import { applyCitations } from './citations';

describe('applyCitations', () => {
  const text = 'Paris is big【1†a】 and old【2†b】. Again【3†c】.';
  const at = (marker: string) => ({ start: text.indexOf(marker), end: text.indexOf(marker) + marker.length });

  it('wraps each cited slice in a highlight span, numbered by unique URL, from the last', () => {
    const c = (marker: string, url: string) => ({
      start_ix: at(marker).start,
      end_ix: at(marker).end,
      metadata: { title: `T ${url}`, url },
    });
    const out = applyCitations(text, [
      c('【3†c】', 'https://a.example/'),
      c('【1†a】', 'https://a.example/'),
      c('【2†b】', 'https://b.example/'),
    ]);
    expect(out.match(/class="browsing-citation"/g)).toHaveLength(3);
    expect(out).toContain(
      '【1†a】<sup><a class="cc-citation-link" href="https://a.example/" title="T https://a.example/">[1]</a></sup>',
    );
    expect(out).toContain(
      '【2†b】<sup><a class="cc-citation-link" href="https://b.example/" title="T https://b.example/">[2]</a></sup>',
    );
    expect(out).toContain(
      '【3†c】<sup><a class="cc-citation-link" href="https://a.example/" title="T https://a.example/">[1]</a></sup>',
    );
    expect(out.startsWith('Paris is big<span')).toBe(true);
  });

  it('escapes metadata and drops unsafe URLs, skipping invalid ranges', () => {
    const out = applyCitations('x[1]y', [
      {
        start_ix: 1,
        end_ix: 4,
        metadata: { title: '"><img src=x onerror=alert(1)>', url: 'javascript:alert(1)' },
      },
      { start_ix: 3, end_ix: 99, metadata: { url: 'https://x.example' } },
    ]);
    expect(out).not.toContain('<img');
    expect(out).not.toContain('javascript:');
    expect(out).toContain('&quot;&gt;&lt;img');
  });
});
