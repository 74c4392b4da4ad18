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
 * What a message frame would repeat besides the text: every field but the content, objects as their JSON (taken
 * when the frame was made: a later change to a shared object still shows).
 */
interface Shape {
  fields: Map<string, unknown>;
  objects: Map<string, string>;
}

function isObject(value: unknown): value is object {
  return value !== null && typeof value === 'object';
}

function shapeOf(m: ChatMessage): Shape {
  const shape: Shape = { fields: new Map(), objects: new Map() };
  for (const [key, value] of Object.entries(m)) {
    if (key === 'content') continue;
    if (isObject(value)) shape.objects.set(key, JSON.stringify(value));
    else shape.fields.set(key, value);
  }
  return shape;
}

/** Whether `m` has the same fields (but the content) as `shape`: only objects are serialized, to compare. */
function sameShape(shape: Shape, m: ChatMessage): boolean {
  let fields = 0;
  let objects = 0;
  for (const [key, value] of Object.entries(m)) {
    if (key === 'content') continue;
    if (isObject(value)) {
      objects++;
      if (shape.objects.get(key) !== JSON.stringify(value)) return false;
    } else {
      fields++;
      if (shape.fields.get(key) !== value || !shape.fields.has(key)) return false;
    }
  }
  return fields === shape.fields.size && objects === shape.objects.size;
}

/**
 * Turns cumulative snapshots into frames. Full mode: every frame carries the whole message. Delta mode: a frame
 * carries only the appended text when that is all that changed; a new message, any other change and the final
 * state carry the whole message. Per-chunk work is proportional to the chunk, not to the answer: the text's tail
 * is compared, and of the other fields only the objects (metadata) are serialized.
 */
export class FrameEncoder {
  private readonly last = new Map<string, { text: string | null; shape: Shape | null; fullSent: boolean }>();

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
    const prev = this.last.get(m.id);
    if (
      prev &&
      prev.text !== null &&
      prev.shape !== null &&
      text !== null &&
      FrameEncoder.extends(prev.text, text) &&
      sameShape(prev.shape, m)
    ) {
      const append = text.slice(prev.text.length);
      prev.text = text;
      prev.fullSent = false;
      return { type: 'message', conversation_id: conversationId, delta: { message_id: m.id, append } };
    }
    // A message whose content is not plain text never becomes a delta: its shape is not needed.
    this.last.set(m.id, { text, shape: text === null ? null : shapeOf(m), fullSent: true });
    return { type: 'message', conversation_id: conversationId, message: m };
  }

  /** Ids whose last frame was a delta: the end sends their complete message. */
  pendingFull(): string[] {
    return [...this.last.entries()].filter(([, v]) => !v.fullSent).map(([id]) => id);
  }
}
