import type { ChatMessage, ChatSource, ConversationHistory } from '@cc/contracts';

export interface MergeMeta {
  conversationId: string;
  source: ChatSource;
  model: string;
  title: string | null;
  pluginIds?: string[] | null;
}

/**
 * Adds the messages of a finished answer to a cached history (or starts one for a new conversation): each keeps
 * the parent the server gave it (else the previous message), is added to its parent's children, and the last
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
  let previous = base.current_node;
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
