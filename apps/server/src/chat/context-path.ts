import { ERROR_DETAILS } from '@cc/contracts';
import type { AppContext } from '../app-context';
import { fail } from '../errors/app-error';
import { messageRepository } from '../repositories/message.repository';
import type { ContextMessage } from '../sources/types';

/** Path from the root to `parent` (oldest first), as context, limited to the last `count` (-1 = all). */
export async function pathContext(
  ctx: AppContext,
  conversationId: string,
  parent: string | null,
  count: number,
): Promise<ContextMessage[]> {
  if (!parent || count === 0) return [];
  const rows = await messageRepository(ctx.dbHandle.db).listByConversation(conversationId);
  const byId = new Map(rows.map((r) => [r.id, r]));
  // Admission checked the parent (`parentOf`); it is missing here only when the conversation was destroyed since
  // (vanished): the ask fails rather than answering without its context.
  if (!byId.has(parent)) throw fail.invalidParams(ERROR_DETAILS.parentNotInConversation);
  const path: ContextMessage[] = [];
  for (let cur = byId.get(parent); cur; cur = cur.parent ? byId.get(cur.parent) : undefined) {
    if ((cur.role === 'user' || cur.role === 'assistant' || cur.role === 'system') && cur.text) {
      path.push({ role: cur.role, content: cur.text });
    }
    if (path.length > 10_000) break;
  }
  path.reverse();
  return count === -1 ? path : path.slice(-count);
}
