import { createContext, useContext } from 'react';

/** The conversation the rendered messages belong to (for links that need its id, e.g. sandbox downloads). */
export const ConversationIdContext = createContext<string | null>(null);

export function useConversationId(): string | null {
  return useContext(ConversationIdContext);
}
