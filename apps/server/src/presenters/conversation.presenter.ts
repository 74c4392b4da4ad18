import { messageText } from '@cc/contracts';
import type { ChatMessage, ChatSource, ConversationHistory, ConversationRead } from '@cc/contracts';
import type { ConversationRow, MessageRow } from '../db/schema';
import type { NewMessageRow } from '../repositories/message.repository';
import { bool } from '../repositories/executor';

export function presentConversation(row: ConversationRow): ConversationRead {
  return {
    id: row.id,
    source: row.source as ChatSource,
    conversation_id: row.conversation_id,
    title: row.title,
    user_id: row.user_id,
    is_valid: bool(row.is_valid),
    is_public: bool(row.is_public),
    current_model: row.current_model,
    create_time: row.create_time,
    update_time: row.update_time,
    pinned_at: row.pinned_at,
  };
}

/** Message row → chat message (children filled by the history assembly). */
export function presentMessage(row: MessageRow, source: ChatSource, children: string[] = []): ChatMessage {
  return {
    id: row.id,
    source,
    role: row.role,
    author_name: row.author_name,
    model: row.model,
    create_time: row.create_time,
    parent: row.parent,
    children,
    content: row.content ? (JSON.parse(row.content) as ChatMessage['content']) : null,
    metadata: row.metadata ? (JSON.parse(row.metadata) as ChatMessage['metadata']) : null,
  } as ChatMessage;
}

/** Chat message → row to upsert. */
export function messageToRow(conversationId: string, m: ChatMessage, seq: number): NewMessageRow {
  return {
    id: m.id,
    conversation_id: conversationId,
    parent: m.parent ?? null,
    role: m.role,
    author_name: m.author_name ?? null,
    model: m.model ?? null,
    content: m.content ? JSON.stringify(m.content) : null,
    metadata: m.metadata ? JSON.stringify(m.metadata) : null,
    text: messageText(m),
    create_time: m.create_time ?? new Date().toISOString(),
    seq,
  };
}

/** The history document from message rows: the tree's children are derived from parent links. */
export function presentHistory(conv: ConversationRow, rows: MessageRow[]): ConversationHistory {
  const source = conv.source as ChatSource;
  const children = new Map<string, string[]>();
  for (const r of rows) {
    if (!r.parent) continue;
    const list = children.get(r.parent) ?? [];
    list.push(r.id);
    children.set(r.parent, list);
  }
  const mapping: ConversationHistory['mapping'] = {};
  for (const r of rows) mapping[r.id] = presentMessage(r, source, children.get(r.id) ?? []);
  return {
    _id: conv.conversation_id,
    source,
    title: conv.title,
    create_time: conv.create_time,
    update_time: conv.update_time,
    mapping,
    current_node: conv.current_node,
    current_model: conv.current_model,
    metadata: { source, plugin_ids: conv.plugin_ids ? (JSON.parse(conv.plugin_ids) as string[]) : null },
  };
}
