import type { ConversationRow, UserRow } from '../db/schema';

/** A conversation is its owner's; superusers may act on every conversation. */
export function canAccessConversation(actor: UserRow, conversation: ConversationRow): boolean {
  return actor.is_superuser === 1 || conversation.user_id === actor.id;
}

/** Only the owner arranges their own list (pins): a superuser's access to every conversation does not extend to it. */
export function canPinConversation(actor: UserRow, conversation: ConversationRow): boolean {
  return conversation.user_id === actor.id;
}
