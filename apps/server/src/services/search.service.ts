import type { ChatSource, ConversationSearchHit, ConversationSearchQuery } from '@cc/contracts';
import type { AppContext } from '../app-context';
import { searchRepository } from '../repositories/search.repository';
import type { SearchRow } from '../repositories/search.repository';

/** Characters of context kept before the first match, and the snippet's length at most. */
const LEAD = 40;
const SNIPPET_LENGTH = 160;
const ELLIPSIS = '…';

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** Moves an index off the second half of a surrogate pair, so a cut never splits a character. */
function atCharacter(text: string, index: number): number {
  const code = text.charCodeAt(index);
  return index > 0 && code >= 0xdc00 && code <= 0xdfff ? index - 1 : index;
}

/**
 * The text as a reader sees it, without markdown's own marks (a snippet is one line of plain text): code fences,
 * heading marks, quote marks, list bullets, link and image targets, emphasis and inline code marks.
 */
export function withoutMarkdown(text: string): string {
  return text
    .replace(/^ {0,3}(?:```|~~~)[^\n]*$/gm, '')
    .replace(/^ {0,3}#{1,6}[ \t]+/gm, '')
    .replace(/^ {0,3}>[ \t]?/gm, '')
    .replace(/^[ \t]*(?:[-*+]|\d{1,9}[.)])[ \t]+/gm, '')
    .replace(/!?\[([^\]\n]*)\]\([^)\n]*\)/g, '$1')
    .replace(/(\*\*|__)(?=\S)([^\n]*?\S)\1/g, '$2')
    .replace(/(?<![\w*])\*(?=\S)([^*\n]*?\S)\*(?![\w*])/g, '$1')
    .replace(/`([^`\n]+)`/g, '$1');
}

/**
 * A plain-text window of `text` around its first case-insensitive occurrence of `q`, with the `[start, end)` offsets
 * of every occurrence inside it; null when `text` does not contain `q`. Markdown's marks are left out, unless the
 * query is found only with them (a search for `**bold**`).
 */
export function snippetOf(
  text: string,
  q: string,
): { snippet: string; highlights: [number, number][] } | null {
  const plain = withoutMarkdown(text);
  return windowOf(plain, q) ?? (plain === text ? null : windowOf(text, q));
}

function windowOf(text: string, q: string): { snippet: string; highlights: [number, number][] } | null {
  const flat = text.replace(/\s+/g, ' ');
  const pattern = new RegExp(escapeRegExp(q.replace(/\s+/g, ' ')), 'giu');
  const first = pattern.exec(flat);
  if (!first) return null;
  const start = atCharacter(flat, Math.max(0, first.index - LEAD));
  const end = atCharacter(
    flat,
    Math.min(flat.length, Math.max(start + SNIPPET_LENGTH, first.index + first[0].length)),
  );
  const prefix = start > 0 ? ELLIPSIS : '';
  const window = flat.slice(start, end);
  const highlights: [number, number][] = [];
  pattern.lastIndex = 0;
  for (let m = pattern.exec(window); m; m = pattern.exec(window)) {
    if (m[0].length === 0) break;
    highlights.push([prefix.length + m.index, prefix.length + m.index + m[0].length]);
  }
  if (highlights.length === 0) return null;
  return { snippet: `${prefix}${window}${end < flat.length ? ELLIPSIS : ''}`, highlights };
}

function toHit(row: SearchRow, q: string): ConversationSearchHit | null {
  const cut = snippetOf(row.text, q);
  if (!cut) return null;
  return {
    conversation_id: row.conversation_id,
    title: row.title,
    source: row.source as ChatSource,
    model: row.current_model,
    message_id: row.message_id,
    role: row.role,
    ...cut,
    time: row.time,
  };
}

/**
 * The user's own valid conversations whose title or message text contains the query: title matches first (newest
 * conversation first), then messages (newest first), at most `limit` in all. The database finds the rows; each
 * result is checked against the text it came from and cut into a snippet.
 */
export async function searchConversations(
  ctx: AppContext,
  userId: number,
  query: ConversationSearchQuery,
): Promise<ConversationSearchHit[]> {
  const repo = searchRepository(ctx.dbHandle.db);
  const titles = await repo.titles(userId, query.q, query.limit);
  const messages = await repo.messages(userId, query.q, query.limit);
  return [...titles, ...messages]
    .map((row) => toHit(row, query.q))
    .filter((hit): hit is ConversationSearchHit => hit !== null)
    .slice(0, query.limit);
}
