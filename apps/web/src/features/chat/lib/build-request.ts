import { MODEL_DISPLAY } from '@cc/contracts';
import type { AskFiles } from './uploads';
import type {
  AnyModel,
  AskRequestInput,
  ChatMessage,
  ChatSource,
  ConversationHistory,
  NewConversationForm,
} from '@cc/contracts';

export type AskTarget =
  | { kind: 'draft'; draft: NewConversationForm }
  | { kind: 'conversation'; conversationId: string; history: ConversationHistory };

/** Sent by "continue" on openai_web; openai_api gets a plain new question instead. */
export const WEB_CONTINUE_TEXT = ':continue';

let tempCounter = 0;

/**
 * The bubble shown for the question until the server echoes its own copy: on the web source with the images
 * (before the text, as the server stores them) and the attachments of the question.
 */
export function makeTempUserMessage(
  source: ChatSource,
  text: string,
  model: string | null,
  files?: AskFiles,
): ChatMessage {
  tempCounter += 1;
  const base = {
    id: `temp_user_${Date.now()}_${tempCounter}`,
    role: 'user',
    model,
    create_time: new Date().toISOString(),
    parent: null,
    children: [],
  };
  if (source === 'openai_api')
    return { ...base, source, content: { content_type: 'text', text }, metadata: {} };
  const images = files?.openai_web_multimodal_image_parts ?? [];
  const attachments = files?.openai_web_attachments ?? [];
  return {
    ...base,
    source,
    content: images.length
      ? {
          content_type: 'multimodal_text',
          parts: [
            ...images.map((p) => ({
              content_type: 'image_asset_pointer' as const,
              asset_pointer: p.asset_pointer,
              size_bytes: p.size_bytes,
              width: p.width,
              height: p.height,
            })),
            text,
          ],
        }
      : { content_type: 'text', parts: [text] },
    metadata: attachments.length
      ? {
          attachments: attachments.map((a) => ({
            id: a.id,
            name: a.name,
            size: a.size,
            ...(a.mime_type ? { mimeType: a.mime_type } : {}),
          })),
        }
      : {},
  };
}

export function modelLabel(model: string | null | undefined): string {
  return (model && MODEL_DISPLAY[model as AnyModel]?.label) || model || '';
}

/**
 * The AskRequest for a question (delta stream mode). A new conversation sends its title (an API chat without one
 * is named after its model; a blank web title lets the server generate one); an existing one sends its id and
 * current node as parent. Uploaded files (web only) go as attachments and image parts.
 */
export function buildAskRequest(
  target: AskTarget,
  text: string,
  defaultApiTitle: (model: string) => string,
  files?: AskFiles,
): AskRequestInput {
  // Files only exist on the web source.
  const fileFields =
    files && (target.kind === 'draft' ? target.draft.source : target.history.source) === 'openai_web'
      ? {
          ...(files.openai_web_attachments?.length
            ? { openai_web_attachments: files.openai_web_attachments }
            : {}),
          ...(files.openai_web_multimodal_image_parts?.length
            ? { openai_web_multimodal_image_parts: files.openai_web_multimodal_image_parts }
            : {}),
        }
      : {};
  if (target.kind === 'draft') {
    const { draft } = target;
    const title = draft.title?.trim() ?? '';
    return {
      source: draft.source,
      model: draft.model,
      new_conversation: true,
      new_title: title || (draft.source === 'openai_api' ? defaultApiTitle(modelLabel(draft.model)) : null),
      text_content: text,
      openai_web_plugin_ids:
        draft.source === 'openai_web' && draft.openaiWebPlugins.length ? draft.openaiWebPlugins : null,
      ...fileFields,
      stream_mode: 'delta',
    };
  }
  const { history, conversationId } = target;
  const pluginIds = history.metadata?.plugin_ids;
  return {
    source: history.source,
    model: history.current_model ?? '',
    new_conversation: false,
    conversation_id: conversationId,
    parent: history.current_node,
    text_content: text,
    openai_web_plugin_ids: history.source === 'openai_web' && pluginIds?.length ? pluginIds : null,
    ...fileFields,
    stream_mode: 'delta',
  };
}
