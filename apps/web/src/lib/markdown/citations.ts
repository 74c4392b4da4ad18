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

/**
 * SPEC §9: wraps each browsing citation's `[start_ix, end_ix)` slice in a highlight span, processing from the last
 * so earlier offsets stay valid. The span links to the source, numbered by unique URL in order of appearance.
 * Out-of-range or overlapping citations are skipped, never allowed to corrupt the text.
 */
export function applyCitations(text: string, citations: readonly CitationInput[] | null | undefined): string {
  if (!citations?.length) return text;
  const sorted = [...citations]
    .filter((c) => Number.isInteger(c.start_ix) && Number.isInteger(c.end_ix))
    .filter((c) => c.start_ix >= 0 && c.end_ix > c.start_ix && c.end_ix <= text.length)
    .sort((a, b) => a.start_ix - b.start_ix);
  const numbers = new Map<string, number>();
  for (const c of sorted) {
    const url = safeUrl(c.metadata?.url);
    if (url && !numbers.has(url)) numbers.set(url, numbers.size + 1);
  }
  let result = text;
  let limit = Infinity;
  for (const c of sorted.reverse()) {
    if (c.end_ix > limit) continue;
    limit = c.start_ix;
    const original = result.slice(c.start_ix, c.end_ix);
    const url = safeUrl(c.metadata?.url);
    const title = c.metadata?.title ?? url ?? '';
    const link = url
      ? `<sup><a class="cc-citation-link" href="${escapeHtml(url)}" title="${escapeHtml(title)}">[${numbers.get(url)}]</a></sup>`
      : '';
    const span = `<span class="browsing-citation" title="${escapeHtml(title)}">${escapeHtml(original)}${link}</span>`;
    result = result.slice(0, c.start_ix) + span + result.slice(c.end_ix);
  }
  return result;
}
