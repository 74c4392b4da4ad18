import type { ConversationRow, UserRow } from '../db/schema';

/** A conversation is its owner's; superusers may act on every conversation. */
export function canAccessConversation(actor: UserRow, conversation: ConversationRow): boolean {
  return actor.is_superuser === 1 || conversation.user_id === actor.id;
}
