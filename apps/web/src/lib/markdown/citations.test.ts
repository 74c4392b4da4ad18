import { describe, expect, it } from 'vitest';
import { applyCitations, stripCitationMarkers } from './citations';

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
    // The provider's markers are gone: each citation shows as its number alone.
    expect(out).not.toMatch(/【|†|】/);
    expect(out).toContain(
      '<span class="browsing-citation" title="T https://a.example/"><sup><a class="cc-citation-link" href="https://a.example/" title="T https://a.example/">[1]</a></sup></span> and old',
    );
    expect(out).toContain(
      '<sup><a class="cc-citation-link" href="https://b.example/" title="T https://b.example/">[2]</a></sup></span>. Again',
    );
    expect(out).toContain(
      '<sup><a class="cc-citation-link" href="https://a.example/" title="T https://a.example/">[1]</a></sup></span>.',
    );
    expect(out.startsWith('Paris is big<span')).toBe(true);
  });

  it('keeps the highlighted words of a citation that covers text, without the markers inside it', () => {
    const source = 'Paris is big【1†source】.';
    const out = applyCitations(source, [
      { start_ix: 0, end_ix: source.length - 1, metadata: { title: 'T', url: 'https://a.example/' } },
    ]);
    expect(out).toBe(
      '<span class="browsing-citation" title="T">Paris is big<sup><a class="cc-citation-link" href="https://a.example/" title="T">[1]</a></sup></span>.',
    );
  });

  it('drops markers no citation covers: while the answer streams, or a marker without a source', () => {
    expect(applyCitations('So far【0†source】 and【1†Title†example.com】 more', [])).toBe('So far and more');
    expect(applyCitations('So far【0†source】 and more', null)).toBe('So far and more');
    expect(
      applyCitations('A【0†source】 b【1†source】.', [{ start_ix: 1, end_ix: 11, metadata: { url: null } }]),
    ).toBe('A b.');
    expect(stripCitationMarkers('Plain【12†source】 text【not a marker】')).toBe(
      'Plain text【not a marker】',
    );
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
