import { messageText } from '@cc/contracts';
import type { AskResponse, ChatMessage } from '@cc/contracts';

/** Where an answer's frames go. Message snapshots are encoded by each destination in its own frame mode. */
export interface AnswerSink {
  /** The ask was accepted (it holds the user's chat-status lock): its frames are kept from now on for resumes. */
  open(): Promise<void>;
  /** A frame other than a message snapshot (queueing, waiting, title, error). */
  send(frame: AskResponse): void;
  /** The whole message so far. */
  message(conversationId: string, message: ChatMessage): void;
  /** The end of the stream: every message whose last frame was a delta is sent whole. */
  endMessages(conversationId: string, messageOf: (id: string) => ChatMessage | undefined): void;
  close(code: number, reason: string): void;
}

/** The text that delta frames append to (plain text content of any source). Null for any other content. */
function appendableText(m: ChatMessage): string | null {
  return m.content?.content_type === 'text' ? messageText(m) : null;
}

/**
 * Turns cumulative snapshots into frames. Full mode: every frame carries the whole message. Delta mode: a frame
 * carries only the appended text when that is all that changed; a new message, any other change and the final
 * state carry the whole message. Per-chunk work is proportional to the chunk, not to the answer.
 */
export class FrameEncoder {
  private readonly last = new Map<string, { text: string | null; rest: string; fullSent: boolean }>();

  /** Cheap prefix test: same length or longer, and the previous text's tail sits at the same place. */
  private static extends(prev: string, next: string): boolean {
    if (next.length < prev.length) return false;
    const from = Math.max(0, prev.length - 64);
    return next.slice(from, prev.length) === prev.slice(from);
  }

  constructor(private readonly mode: 'full' | 'delta') {}

  encode(conversationId: string, m: ChatMessage): AskResponse {
    if (this.mode === 'full') return { type: 'message', conversation_id: conversationId, message: m };
    const text = appendableText(m);
    const rest = JSON.stringify({ ...m, content: text === null ? m.content : null });
    const prev = this.last.get(m.id);
    this.last.set(m.id, { text, rest, fullSent: true });
    if (
      prev &&
      prev.text !== null &&
      text !== null &&
      prev.rest === rest &&
      FrameEncoder.extends(prev.text, text)
    ) {
      this.last.set(m.id, { text, rest, fullSent: false });
      return {
        type: 'message',
        conversation_id: conversationId,
        delta: { message_id: m.id, append: text.slice(prev.text.length) },
      };
    }
    return { type: 'message', conversation_id: conversationId, message: m };
  }

  /** Ids whose last frame was a delta: the end sends their complete message. */
  pendingFull(): string[] {
    return [...this.last.entries()].filter(([, v]) => !v.fullSent).map(([id]) => id);
  }
}
