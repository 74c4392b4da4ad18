import { createContext, useContext } from 'react';

/** The conversation the rendered messages belong to (for links that need its id, e.g. sandbox downloads). */
export const ConversationIdContext = createContext<string | null>(null);

export function useConversationId(): string | null {
  return useContext(ConversationIdContext);
}

/**
 * The link's token on a share link's public page, null elsewhere. Files the messages show load there through the
 * link (`/api/share/{token}/files/{id}`), never through the owner's file routes.
 */
export const SharedViewContext = createContext<string | null>(null);

export function useShareToken(): string | null {
  return useContext(SharedViewContext);
}

/**
 * True for a row the list renders outside its view (overscan): its markdown may wait until the browser is idle, so
 * the rows in view show first. A row in view, or one already rendered, renders at once.
 */
export const DeferMarkdownContext = createContext(false);
