import { createContext } from 'react';
import type { ChatMessage } from '@cc/contracts';

/** What a conversation lets its rows do: switch between versions of a message, regenerate, edit a question. */
export interface MessageActions {
  /** The versions of a message (itself and its siblings), in order. */
  siblingsOf(id: string): string[];
  /** Shows the version `id` (and the latest branch below it). */
  switchTo(id: string): void;
  /** Asks the question of this answer again; offered on the last answer while nothing is being answered. */
  regenerate?: (answer: ChatMessage) => void;
  /** The id of the last answer's row (regenerate shows there). */
  lastAnswerGroupId: string | null;
  /** Asks an edited question beside the original; absent while an answer streams. */
  edit?: (question: ChatMessage, text: string) => void;
}

/** Provided by the chat; absent (read only) in the history viewer and the admin's view. */
export const MessageActionsContext = createContext<MessageActions | null>(null);
