import { messageText } from '@cc/contracts';
import type { AskResponse, ChatMessage } from '@cc/contracts';

/** Where an answer's frames go. Message snapshots are encoded by each destination in its own frame mode. */
export interface AnswerSink {
  /** The ask was accepted (it holds the user's chat-status lock): its frames are kept from now on for resumes. */
  open(): Promise<void>;
  /** A frame other than a message snapshot (queueing, waiting, title, error). */
  send(frame: AskResponse): void;
  /** The whole message so far; `appended`: its text since the last snapshot, if the source knows (SourceEvent). */
  message(conversationId: string, message: ChatMessage, appended?: string): void;
  /** The end of the stream: what the frames have not sent yet goes out now (the client has every message whole). */
  endMessages(): void;
  close(code: number, reason: string): void;
}

/**
 * What a delta's text is appended to, by the kind of content: the text of an API message, the one part of a web
 * text message, the text of code, its output and its errors (with the code's language: a delta cannot change it).
 * Null for any other content (several parts, images, browsing results…): such a message always goes whole.
 */
function contentKind(m: ChatMessage): string | null {
  const c = m.content;
  if (!c) return null;
  if (m.source === 'openai_api') return c.content_type === 'text' ? 'text' : null;
  switch (c.content_type) {
    case 'text':
      if (!('parts' in c)) return 'text';
      return c.parts.length === 1 && typeof c.parts[0] === 'string' ? 'text' : null;
    case 'code':
      return `code:${c.language ?? ''}`;
    case 'execution_output':
    case 'stderr':
      return c.content_type;
    case 'multimodal_text':
    case 'system_error':
    case 'tether_browsing_display':
    case 'tether_quote':
      return null;
  }
}

/**
 * A copy of an object a message frame carried, to tell whether a later snapshot changed it (also in place). An
 * array or object whose items are all primitives is kept as its items, compared one by one; anything deeper as
 * its JSON. A chunk of a streamed answer compares its message's objects without serializing or copying them.
 */
type Kept =
  | { kind: 'array'; items: unknown[] }
  | { kind: 'object'; entries: unknown[] }
  | { kind: 'json'; json: string };

/**
 * What a message frame would repeat besides the text: every field but the content, in order, objects as `Kept`
 * copies (taken when the frame was made: a later change to a shared object still shows).
 */
interface Shape {
  keys: string[];
  values: unknown[];
}

/** Whether `key` is an own property of `value` (a `for … in` loop also visits inherited ones). */
const hasOwn = (value: object, key: string): boolean => Object.prototype.hasOwnProperty.call(value, key);

function isObject(value: unknown): value is object {
  return value !== null && typeof value === 'object';
}

function keep(value: object): Kept {
  if (Array.isArray(value)) {
    if (value.every((item) => !isObject(item))) return { kind: 'array', items: [...(value as unknown[])] };
  } else {
    const entries: unknown[] = [];
    let flat = true;
    for (const key in value) {
      if (!hasOwn(value, key)) continue;
      const item = (value as Record<string, unknown>)[key];
      if (isObject(item)) {
        flat = false;
        break;
      }
      entries.push(key, item);
    }
    if (flat) return { kind: 'object', entries };
  }
  return { kind: 'json', json: JSON.stringify(value) };
}

function unchanged(kept: Kept, value: object): boolean {
  if (kept.kind === 'json') return kept.json === JSON.stringify(value);
  if (kept.kind === 'array') {
    if (!Array.isArray(value) || value.length !== kept.items.length) return false;
    for (let i = 0; i < value.length; i++) if (!Object.is(value[i], kept.items[i])) return false;
    return true;
  }
  if (Array.isArray(value)) return false;
  const { entries } = kept;
  let i = 0;
  for (const key in value) {
    if (!hasOwn(value, key)) continue;
    if (i >= entries.length || entries[i] !== key) return false;
    if (!Object.is((value as Record<string, unknown>)[key], entries[i + 1])) return false;
    i += 2;
  }
  return i === entries.length;
}

function shapeOf(m: ChatMessage): Shape {
  const shape: Shape = { keys: [], values: [] };
  for (const key in m) {
    if (key === 'content' || !hasOwn(m, key)) continue;
    const value = (m as Record<string, unknown>)[key];
    shape.keys.push(key);
    shape.values.push(isObject(value) ? keep(value) : value);
  }
  return shape;
}

/**
 * The fields of `m` (the content aside) that differ from `shape`, with their values in `m`: undefined when none does
 * (the usual case: no object is made), null when a field of `shape` is gone from `m` or became `undefined` (a
 * delta cannot say that: JSON has no undefined).
 */
function changedFields(shape: Shape, m: ChatMessage): Record<string, unknown> | null | undefined {
  let changed: Record<string, unknown> | undefined;
  let found = 0;
  let next = 0;
  for (const key in m) {
    if (key === 'content' || !hasOwn(m, key)) continue;
    const value = (m as Record<string, unknown>)[key];
    // Fields come in the order of the last frame's: look further only when one appeared or moved.
    const at = shape.keys[next] === key ? next : shape.keys.indexOf(key);
    if (at === -1) {
      (changed ??= {})[key] = value;
      continue;
    }
    found++;
    next = at + 1;
    const before = shape.values[at];
    const same = isObject(value)
      ? isObject(before) && unchanged(before as Kept, value)
      : !isObject(before) && Object.is(value, before);
    if (!same) {
      if (value === undefined) return null;
      (changed ??= {})[key] = value;
    }
  }
  return found === shape.keys.length ? changed : null;
}

/**
 * Turns cumulative snapshots into frames. Full mode: every frame carries the whole message. Delta mode: a message is
 * sent whole once; after that a frame carries what changed — the appended text, and the other fields that changed
 * (`set`, with their new values). A message goes whole again only when its text is replaced rather than appended
 * to, its content cannot take appends (`contentKind`), or a field went away; the end of the answer repeats nothing.
 * Per-chunk work is proportional to the chunk, not to the answer: the text's tail is compared, and the other fields
 * against a copy (see `Kept`).
 */
export class FrameEncoder {
  private readonly last = new Map<string, { kind: string | null; text: string; shape: Shape | null }>();

  /** Cheap prefix test: same length or longer, and the previous text's tail sits at the same place. */
  private static extends(prev: string, next: string): boolean {
    if (next.length < prev.length) return false;
    const from = Math.max(0, prev.length - 64);
    return next.slice(from, prev.length) === prev.slice(from);
  }

  constructor(private readonly mode: 'full' | 'delta') {}

  /**
   * `appended`: the text added since the message's last snapshot, when its source knows it (see SourceEvent): it is
   * taken as the delta when the lengths agree, without reading the message's text.
   */
  encode(conversationId: string, m: ChatMessage, appended?: string): AskResponse {
    if (this.mode === 'full') return { type: 'message', conversation_id: conversationId, message: m };
    const kind = contentKind(m);
    // The text a delta appends to (where the web client appends it too).
    const text = kind === null ? '' : messageText(m);
    const prev = this.last.get(m.id);
    if (prev && prev.shape !== null && kind !== null && kind === prev.kind) {
      const append =
        appended !== undefined && text.length === prev.text.length + appended.length
          ? appended
          : FrameEncoder.extends(prev.text, text)
            ? text.slice(prev.text.length)
            : null;
      const set = append === null ? null : changedFields(prev.shape, m);
      if (append !== null && set !== null) {
        prev.text = text;
        if (set === undefined) {
          return { type: 'message', conversation_id: conversationId, delta: { message_id: m.id, append } };
        }
        prev.shape = shapeOf(m);
        return { type: 'message', conversation_id: conversationId, delta: { message_id: m.id, append, set } };
      }
    }
    // A message whose content cannot take appended text never becomes a delta: its shape is not needed.
    this.last.set(m.id, { kind, text, shape: kind === null ? null : shapeOf(m) });
    return { type: 'message', conversation_id: conversationId, message: m };
  }
}
