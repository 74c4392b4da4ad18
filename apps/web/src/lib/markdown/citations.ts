export interface CitationInput {
  start_ix: number;
  end_ix: number;
  metadata?: { title?: string | null; url?: string | null; text?: string | null } | null;
}

export function escapeHtml(text: string): string {
  return text
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&#39;');
}

function safeUrl(url: string | null | undefined): string | null {
  if (!url) return null;
  try {
    const parsed = new URL(url);
    return parsed.protocol === 'http:' || parsed.protocol === 'https:' ? parsed.href : null;
  } catch {
    return null;
  }
}

/** The highlight span of one cited slice (its text without markers), with the source's number as a link. */
function citationSpan(original: string, c: CitationInput, numbers: ReadonlyMap<string, number>): string {
  const url = safeUrl(c.metadata?.url);
  const title = c.metadata?.title ?? url ?? '';
  const link = url
    ? `<sup><a class="cc-citation-link" href="${escapeHtml(url)}" title="${escapeHtml(title)}">[${numbers.get(url)}]</a></sup>`
    : '';
  if (!original && !link) return '';
  return `<span class="browsing-citation" title="${escapeHtml(title)}">${escapeHtml(original)}${link}</span>`;
}

/** The provider's raw citation marker, such as `【0†source】` or `【3†Title†example.com】`. */
const MARKER = /【\d+(?:†[^】\n]{0,200})?】/g;

/** The text without the provider's raw citation markers (answers shown as plain text). */
export function stripCitationMarkers(text: string): string {
  return text.replace(MARKER, '');
}

/**
 * SPEC §9: wraps each browsing citation's `[start_ix, end_ix)` slice in a highlight span, processing from the last
 * so earlier offsets stay valid. The span links to the source, numbered by unique URL in order of appearance.
 * Out-of-range or overlapping citations are skipped, never allowed to corrupt the text. The provider's raw markers
 * never show: a cited marker becomes its number alone, and one no citation covers (yet: while the answer streams,
 * or ever) is dropped.
 */
export function applyCitations(text: string, citations: readonly CitationInput[] | null | undefined): string {
  if (!citations?.length) return text.replace(MARKER, '');
  const sorted = [...citations]
    .filter((c) => Number.isInteger(c.start_ix) && Number.isInteger(c.end_ix))
    .filter((c) => c.start_ix >= 0 && c.end_ix > c.start_ix && c.end_ix <= text.length)
    .sort((a, b) => a.start_ix - b.start_ix);
  const numbers = new Map<string, number>();
  for (const c of sorted) {
    const url = safeUrl(c.metadata?.url);
    if (url && !numbers.has(url)) numbers.set(url, numbers.size + 1);
  }
  // Built from the last citation backwards: the text after each cited slice, then the slice's span.
  const pieces: string[] = [];
  let rest = text.length;
  for (const c of sorted.reverse()) {
    if (c.end_ix > rest) continue;
    pieces.push(text.slice(c.end_ix, rest).replace(MARKER, ''));
    pieces.push(citationSpan(text.slice(c.start_ix, c.end_ix).replace(MARKER, ''), c, numbers));
    rest = c.start_ix;
  }
  pieces.push(text.slice(0, rest).replace(MARKER, ''));
  return pieces.reverse().join('');
}
