import { createContext, useContext } from 'react';

/** The conversation the rendered messages belong to (for links that need its id, e.g. sandbox downloads). */
export const ConversationIdContext = createContext<string | null>(null);

export function useConversationId(): string | null {
  return useContext(ConversationIdContext);
}

/**
 * True on a share link's public page: nothing there may reach the owner's files (images and attachments are
 * shown as placeholders, named but not loaded).
 */
export const SharedViewContext = createContext(false);

export function useSharedView(): boolean {
  return useContext(SharedViewContext);
}
