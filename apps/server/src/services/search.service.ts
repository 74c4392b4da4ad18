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
 * A plain-text window of `text` around its first case-insensitive occurrence of `q`, with the `[start, end)` offsets
 * of every occurrence inside it; null when `text` does not contain `q`.
 */
export function snippetOf(
  text: string,
  q: string,
): { snippet: string; highlights: [number, number][] } | null {
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
