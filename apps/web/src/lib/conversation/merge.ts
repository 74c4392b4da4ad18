import type { ChatMessage, ChatSource, ConversationHistory } from '@cc/contracts';

export interface MergeMeta {
  conversationId: string;
  source: ChatSource;
  model: string;
  title: string | null;
  pluginIds?: string[] | null;
  /**
   * Where the ask hangs (its request's `parent`): null at the top (a first question, or an edit of it), undefined
   * under the current node.
   */
  parent?: string | null;
}

/**
 * Adds the messages of a finished answer to a cached history (or starts one for a new conversation): each keeps
 * the parent the server gave it (else the previous message; the first, else where the ask hangs), is added to its parent's children, and the last
 * becomes the current node. The server's copy replaces it on the next fetch.
 */
export function mergeAskIntoHistory(
  history: ConversationHistory | undefined,
  messages: readonly ChatMessage[],
  meta: MergeMeta,
): ConversationHistory {
  const now = new Date().toISOString();
  const base: ConversationHistory = history ?? {
    _id: meta.conversationId,
    source: meta.source,
    title: meta.title,
    create_time: now,
    update_time: now,
    mapping: {},
    current_node: null,
    current_model: meta.model,
    metadata: meta.pluginIds?.length ? { plugin_ids: meta.pluginIds } : null,
  };
  const mapping: Record<string, ChatMessage> = { ...base.mapping };
  let previous = meta.parent === undefined ? base.current_node : meta.parent;
  for (const message of messages) {
    const parent = message.parent ?? previous;
    mapping[message.id] = { ...message, parent };
    const parentMessage = parent ? mapping[parent] : undefined;
    if (parent && parentMessage && !parentMessage.children.includes(message.id)) {
      mapping[parent] = { ...parentMessage, children: [...parentMessage.children, message.id] };
    }
    previous = message.id;
  }
  return {
    ...base,
    title: base.title ?? meta.title,
    update_time: now,
    mapping,
    current_node: previous,
  };
}
