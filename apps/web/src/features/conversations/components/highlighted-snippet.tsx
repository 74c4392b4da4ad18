import type { ReactNode } from 'react';

/**
 * Plain text with the `[start, end)` ranges wrapped in `<mark>`. The text is rendered as text (never as markup);
 * ranges out of bounds, empty, reversed or overlapping an earlier one are skipped.
 */
export function HighlightedSnippet({ text, ranges }: { text: string; ranges: readonly [number, number][] }) {
  const pieces: ReactNode[] = [];
  let at = 0;
  for (const [start, end] of [...ranges].sort((a, b) => a[0] - b[0])) {
    if (start < at || end <= start || end > text.length) continue;
    if (start > at) pieces.push(text.slice(at, start));
    pieces.push(<mark key={start}>{text.slice(start, end)}</mark>);
    at = end;
  }
  if (at < text.length) pieces.push(text.slice(at));
  return <>{pieces}</>;
}
