import { messageText } from '@cc/contracts';
import type { ChatMessage, WebChatMessage } from '@cc/contracts';

/**
 * SPEC §4 current path: follow parent links from `current_node` to the root, stopping at a missing message or
 * one without content, then reverse. A cycle in bad data also stops the walk.
 */
export function getCurrentPath(
  mapping: Readonly<Record<string, ChatMessage>>,
  currentNode: string | null | undefined,
): ChatMessage[] {
  const path: ChatMessage[] = [];
  const seen = new Set<string>();
  let id = currentNode ?? null;
  while (id && !seen.has(id)) {
    seen.add(id);
    const message = mapping[id];
    if (!message || message.content === undefined || message.content === null) break;
    path.push(message);
    id = message.parent ?? null;
  }
  return path.reverse();
}

/** True when the last message was cut by the length limit and can be continued (web `max_tokens`, api `length`). */
export function canContinue(messages: readonly ChatMessage[]): boolean {
  const last = messages[messages.length - 1];
  if (!last || last.role !== 'assistant') return false;
  if (last.source === 'openai_web') return last.metadata?.finish_details?.type === 'max_tokens';
  return last.metadata?.finish_reason === 'length';
}

export interface MessageGroup {
  /** Id of the group's first message (stable React key). */
  id: string;
  role: 'user' | 'assistant';
  messages: ChatMessage[];
}

/**
 * Why a stored answer is incomplete: `length`, the length limit cut it; `interrupted`, its stream ended early — the
 * user stopped it, or an error or a shutdown cut it off (what is stored does not say which).
 */
export type IncompleteReason = 'length' | 'interrupted';

/**
 * Whether the answer of a row ended before it was complete, read from its last message: api `finish_reason`
 * (`length`, or null: no end reached — an older copy without the field says nothing), web `finish_details`
 * (`max_tokens`, `interrupted`) or a status the upstream never finished (`in_progress`, as written while streaming,
 * and `finished_partial_completion`). A row still streaming looks the same: the caller knows which row that is.
 */
export function incompleteReason(group: MessageGroup): IncompleteReason | null {
  const last = group.messages[group.messages.length - 1];
  if (group.role !== 'assistant' || !last) return null;
  if (last.source === 'openai_api') {
    const metadata = last.metadata;
    if (!metadata || !('finish_reason' in metadata)) return null;
    if (metadata.finish_reason === 'length') return 'length';
    return metadata.finish_reason === null ? 'interrupted' : null;
  }
  const details = last.metadata?.finish_details?.type;
  if (details === 'max_tokens') return 'length';
  if (details === 'interrupted') return 'interrupted';
  const status = last.metadata?.message_status;
  return status === 'in_progress' || status === 'finished_partial_completion' ? 'interrupted' : null;
}

function single(message: ChatMessage): MessageGroup {
  return { id: message.id, role: message.role === 'user' ? 'user' : 'assistant', messages: [message] };
}

/**
 * SPEC §4 message grouping (system messages dropped): web assistant or tool messages chain into one group until
 * one with `end_turn` true (or without metadata) closes it; a user message and every API message stand alone.
 */
export function groupMessages(messages: readonly ChatMessage[]): MessageGroup[] {
  const groups: MessageGroup[] = [];
  let run: ChatMessage[] = [];
  const flush = () => {
    const first = run[0];
    if (first) groups.push({ id: first.id, role: 'assistant', messages: run });
    run = [];
  };
  for (const message of messages) {
    if (message.role === 'system') continue;
    if (message.source === 'openai_web' && message.role !== 'user') {
      if (message.metadata && message.metadata.end_turn !== true) {
        run.push(message);
      } else if (run.length > 0) {
        run.push(message);
        flush();
      } else {
        groups.push(single(message));
      }
    } else {
      flush();
      groups.push(single(message));
    }
  }
  flush();
  return groups;
}

export type BucketKind = 'text' | 'dalle' | 'other';

export interface MessageBucket {
  id: string;
  kind: BucketKind;
  messages: ChatMessage[];
}

export type Logger = (message: string, detail?: unknown) => void;

const defaultLogger: Logger = (message, detail) => console.error(message, detail);

function bucketKind(message: WebChatMessage): BucketKind {
  if (message.role === 'user') return 'text';
  if (
    message.role === 'assistant' &&
    message.content?.content_type === 'text' &&
    (message.metadata?.recipient ?? 'all') === 'all'
  ) {
    return 'text';
  }
  if (message.author_name === 'dalle.text2im') return 'dalle';
  return 'other';
}

/**
 * Splits a group into display buckets: consecutive plain-text answers together, DALL·E messages together, the
 * rest (code + output, browsing, plugins) as tool-use buckets. Every API message is its own bucket. A second
 * user message in a group is logged as an error and skipped.
 */
export function splitGroup(group: MessageGroup, log: Logger = defaultLogger): MessageBucket[] {
  const buckets: MessageBucket[] = [];
  let seenUser = false;
  for (const message of group.messages) {
    if (message.role === 'user') {
      if (seenUser) {
        log('A second user message inside a message group was skipped', message.id);
        continue;
      }
      seenUser = true;
    }
    if (message.source === 'openai_api') {
      buckets.push({ id: message.id, kind: 'text', messages: [message] });
      continue;
    }
    const kind = bucketKind(message);
    const last = buckets[buckets.length - 1];
    if (last && last.kind === kind && message.role !== 'user' && last.messages[0]?.role !== 'user') {
      last.messages.push(message);
    } else {
      buckets.push({ id: message.id, kind, messages: [message] });
    }
  }
  return buckets;
}

export type DisplayType =
  | 'text'
  | 'multimodal_text'
  | 'browser'
  | 'dalle_prompt'
  | 'dalle_result'
  | 'myfiles_browser'
  | 'plugin'
  | 'code';

function textOrMultimodal(message: ChatMessage): DisplayType {
  return message.source === 'openai_web' && message.content?.content_type === 'multimodal_text'
    ? 'multimodal_text'
    : 'text';
}

/** How a bucket is shown, decided by its first decisive message (reference §2.5 G). */
export function displayTypeOf(bucket: MessageBucket, conversationModel?: string | null): DisplayType {
  for (const message of bucket.messages) {
    if (message.source === 'openai_api') return 'text';
    const recipient = message.metadata?.recipient ?? 'all';
    const contentType = message.content?.content_type;
    const model = message.model ?? conversationModel;
    if (message.role === 'assistant' && contentType === 'text' && recipient === 'all') return 'text';
    if (message.id.startsWith('temp_') || message.role === 'user') return textOrMultimodal(message);
    if (message.role === 'assistant') {
      if (recipient === 'browser') return 'browser';
      if (recipient === 'dalle.text2im') return 'dalle_prompt';
      if (recipient === 'myfiles_browser') return 'myfiles_browser';
      if (recipient !== 'all' && model === 'gpt_4_plugins') return 'plugin';
    }
    if (message.role === 'tool') {
      if (message.author_name === 'browser') return 'browser';
      if (message.author_name === 'dalle.text2im') return 'dalle_result';
      if (message.author_name === 'myfiles_browser') return 'myfiles_browser';
      if (message.author_name !== 'python') return 'plugin';
    }
    if (contentType === 'code' || contentType === 'execution_output' || contentType === 'stderr')
      return 'code';
    return textOrMultimodal(message);
  }
  return 'text';
}

/** The main text of a message: empty when it has none, "name: text" for a system error (SPEC §8). */
export function textOf(message: ChatMessage): string {
  return messageText(message);
}

/** A copy of the message with text appended to its main text (delta frames). Other messages are untouched. */
export function appendText(message: ChatMessage, append: string): ChatMessage {
  if (!append) return message;
  if (message.source === 'openai_api') {
    const text = message.content?.text ?? '';
    return { ...message, content: { content_type: 'text', text: text + append } };
  }
  const content = message.content;
  if (!content) return { ...message, content: { content_type: 'text', parts: [append] } };
  if (content.content_type === 'text' || content.content_type === 'multimodal_text') {
    const parts = [...content.parts];
    const index = parts.findIndex((p) => typeof p === 'string');
    if (index === -1) parts.push(append);
    else parts[index] = (parts[index] as string) + append;
    return { ...message, content: { ...content, parts } as typeof content };
  }
  if ('text' in content && typeof content.text === 'string') {
    return { ...message, content: { ...content, text: content.text + append } };
  }
  return message;
}
