import type { ChatMessage, ConversationHistory } from '@cc/contracts';
import { isServerMessage } from './ask-session';

/**
 * Where the answer being received hangs in the stored conversation: the parent its first message names (the
 * previous answer of a question, the question of a regenerated answer), when the conversation holds it; undefined
 * before the server named one, or when it is not known here.
 *
 * The stored conversation may already hold the answer itself: the server writes a running answer about once a
 * second and moves the conversation's current node to it. After a reload, the stored path therefore ends with a
 * copy of the answer being resumed (or, reloaded before that write, with the branch a regenerate replaces): the
 * messages shown must leave the stored path here.
 */
export function askBranchPoint(
  history: ConversationHistory | undefined,
  messages: readonly ChatMessage[],
): string | undefined {
  const parent = messages.find(isServerMessage)?.parent;
  return parent && history?.mapping[parent] ? parent : undefined;
}

/** The stored path, then the answer's messages; a stored copy of one of them is left out (the answer's is newer). */
export function withAnswer(path: readonly ChatMessage[], messages: readonly ChatMessage[]): ChatMessage[] {
  if (messages.length === 0) return [...path];
  const own = new Set(messages.map((m) => m.id));
  return [...path.filter((m) => !own.has(m.id)), ...messages];
}
