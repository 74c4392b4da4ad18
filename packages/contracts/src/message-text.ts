import type { ApiContent, ChatMessage, WebContent } from './message';

// No schema here (types only): pages that show messages do not load zod for this.
/** The text a message shows: empty for messages without text (SPEC §8), "name: text" for system errors. */
export function messageText(message: ChatMessage): string {
  const c = message.content;
  if (!c) return '';
  if (message.source === 'openai_api') return (c as ApiContent).text;
  const w = c as WebContent;
  switch (w.content_type) {
    case 'text':
      return w.parts.join('');
    case 'multimodal_text':
      return w.parts.filter((p): p is string => typeof p === 'string').join('');
    case 'code':
    case 'execution_output':
    case 'stderr':
      return w.text;
    case 'tether_browsing_display':
      return w.result ?? '';
    case 'tether_quote':
      return w.text ?? '';
    case 'system_error':
      return `${w.name}: ${w.text}`;
  }
}
