import { ERROR_DETAILS, isModelOfSource } from '@cc/contracts';
import type { AskRequest, UserSetting } from '@cc/contracts';
import type { AppContext } from '../app-context';
import type { ConversationRow, UserRow } from '../db/schema';
import { fail } from '../errors/app-error';
import { markUserActive } from '../services/auth.service';
import { getConversationFor } from '../services/conversation.service';
import { assertAskFilesUsable } from '../services/file.service';
import { getUser } from '../services/user.service';
import { joinSettings } from '../services/user-settings';
import type { SourceAdapter } from '../sources/types';
import { checkQuota, reserve } from './quota-ledger';
import type { Reservation } from './quota-ledger';

/** An ask that passed every check and has been charged. */
export interface Admission {
  /** The conversation a follow-up continues; null for a new conversation. */
  conversation: ConversationRow | null;
  setting: UserSetting;
  /** The plugins the ask uses (the adapter's decision). */
  pluginIds: string[] | null;
  reservation: Reservation;
}

function parsePluginIds(json: string | null): string[] | null {
  if (!json) return null;
  try {
    const ids = JSON.parse(json) as unknown;
    return Array.isArray(ids) ? ids.filter((id): id is string => typeof id === 'string') : null;
  } catch {
    return null;
  }
}

/** The conversation a follow-up continues: the actor's own (or any, for a superuser), valid, of the same source. */
async function conversationToContinue(
  ctx: AppContext,
  user: UserRow,
  request: AskRequest,
): Promise<ConversationRow> {
  const conversation = await getConversationFor(ctx, user, request.conversation_id!);
  if (!conversation.is_valid) throw fail.conversationAlreadyDeleted();
  if (conversation.source !== request.source) throw fail.invalidParams(ERROR_DETAILS.sourceMismatch);
  return conversation;
}

/**
 * Admission: validate, authorize, check every quota and file, then charge. Throws the error the user should see
 * for the first check that fails; nothing is charged then. Asking counts as activity.
 */
export async function admitAsk(
  ctx: AppContext,
  user: UserRow,
  request: AskRequest,
  adapter: SourceAdapter,
): Promise<Admission> {
  const { source, model } = request;
  await markUserActive(ctx, user);
  if (!isModelOfSource(source, model)) throw fail.invalidParams(ERROR_DETAILS.unknownModel, { model });
  const conversation = request.new_conversation ? null : await conversationToContinue(ctx, user, request);
  const loaded = await getUser(ctx, user.id);
  const setting = joinSettings(loaded.setting, loaded.counters);
  const config = ctx.runtime.current();
  const { pluginIds } = adapter.checkRequest({
    request,
    conversation: conversation && {
      conversationId: conversation.conversation_id,
      pluginIds: parsePluginIds(conversation.plugin_ids),
    },
    setting,
    config,
  });
  await checkQuota(ctx, {
    userId: user.id,
    setting,
    source,
    model,
    newConversation: request.new_conversation,
    attachments: request.openai_web_attachments?.length ?? 0,
    images: request.openai_web_multimodal_image_parts?.length ?? 0,
    rules: adapter,
  });
  const attachments = request.openai_web_attachments ?? [];
  await assertAskFilesUsable(ctx, user, attachments, request.openai_web_multimodal_image_parts ?? []);
  const reservation = await reserve(ctx, user.id, source, model);
  return { conversation, setting, pluginIds, reservation };
}
