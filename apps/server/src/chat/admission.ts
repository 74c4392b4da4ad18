import { ERROR_DETAILS, isModelOfSource } from '@cc/contracts';
import type { AskRequest, UserSetting } from '@cc/contracts';
import type { AppContext } from '../app-context';
import type { ConversationRow, UserRow } from '../db/schema';
import { fail } from '../errors/app-error';
import { messageRepository } from '../repositories/message.repository';
import { markUserActive } from '../services/auth.service';
import { getConversationFor } from '../services/conversation.service';
import { assertAskFilesUsable } from '../services/file.service';
import { loadUserSettings } from '../services/user.service';
import { joinSettings } from '../presenters/user.presenter';
import type { SourceAdapter } from '../sources/types';
import { countTokens } from '../sources/tokens';
import { pathContext } from './context-path';
import { checkQuota, estimateAskCost, knownLimits, reserve } from './quota-ledger';
import type { Charge, Reservation } from './quota-ledger';
import type { Executor } from '../repositories/executor';

/** An ask that passed every check and has been charged. */
export interface Admission {
  /** The conversation a follow-up continues; null for a new conversation. */
  conversation: ConversationRow | null;
  setting: UserSetting;
  /** The plugins the ask uses (the adapter's decision). */
  pluginIds: string[] | null;
  /** Asking again (regenerate): the question answered again, and its parent. */
  question: { id: string; parent: string | null } | null;
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
/** The question a regenerate answers again: a user message of this conversation. */
async function questionToAnswerAgain(
  ctx: AppContext,
  conversation: ConversationRow,
  messageId: string,
): Promise<{ id: string; parent: string | null }> {
  const row = await messageRepository(ctx.dbHandle.db).findById(messageId);
  if (row?.conversation_id !== conversation.conversation_id || row.role !== 'user')
    throw fail.invalidParams(ERROR_DETAILS.notAQuestion);
  return { id: row.id, parent: row.parent };
}

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
 * Tokens the ask sends, counted with the tokenizer: the question and, for the API source (which sends the
 * conversation), the context it takes along. The web account keeps its context upstream.
 */
async function inputTokensOf(
  ctx: AppContext,
  request: AskRequest,
  conversation: ConversationRow | null,
  question: { id: string; parent: string | null } | null,
): Promise<number> {
  const texts = [request.text_content];
  if (conversation && request.source === 'openai_api') {
    const parent = question ? question.parent : (request.parent ?? null);
    const context = await pathContext(
      ctx,
      conversation.conversation_id,
      parent,
      request.api_context_message_count,
    );
    for (const m of context) texts.push(m.content);
  }
  return texts.reduce((n, text) => n + countTokens(request.model, text), 0);
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
  /** Written in the charge's transaction (the record of the ask in flight). */
  alongside?: (trx: Executor, charge: Charge) => Promise<void>,
): Promise<Admission> {
  const { source, model } = request;
  markUserActive(ctx, user);
  if (!isModelOfSource(source, model)) throw fail.invalidParams(ERROR_DETAILS.unknownModel, { model });
  const conversation = request.new_conversation ? null : await conversationToContinue(ctx, user, request);
  const question =
    conversation && request.action === 'variant'
      ? await questionToAnswerAgain(ctx, conversation, request.parent!)
      : null;
  // The user row came with the session: only the settings and counters are read.
  const loaded = await loadUserSettings(ctx, user);
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
    budgets: loaded.setting,
  });
  const attachments = request.openai_web_attachments ?? [];
  await assertAskFilesUsable(ctx, user, attachments, request.openai_web_multimodal_image_parts ?? []);
  // The reservation only matters against a budget: without one (or for a model without a price) the settlement
  // charges the real cost and the tokenizer (the costliest step of admission) is not run.
  const known = knownLimits(setting, source, model, loaded.setting);
  const estimate =
    known.budgeted && config.billing.prices[model]
      ? estimateAskCost(config.billing, model, await inputTokensOf(ctx, request, conversation, question))
      : 0;
  const reservation = await reserve(ctx, user.id, source, model, {
    cap: adapter.sharedCap(config, model),
    estimate,
    alongside,
    known,
  });
  return { conversation, setting, pluginIds, question, reservation };
}
