import { randomUUID } from 'node:crypto';
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
  /** Asking again (regenerate): the question answered again. */
  question: Question | null;
  /**
   * Where the ask goes in the conversation's tree: the new question's parent (for a regenerate, the question's), the
   * message continued, or null for a first question of a source without a root.
   */
  parent: string | null;
  reservation: Reservation;
}

/** A stored question, answered again. */
interface Question {
  id: string;
  parent: string | null;
  text: string;
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

/** The question a regenerate answers again: a user message of this conversation. */
async function questionToAnswerAgain(
  ctx: AppContext,
  conversation: ConversationRow,
  messageId: string,
): Promise<Question> {
  const row = await messageRepository(ctx.dbHandle.db).findById(messageId);
  if (row?.conversation_id !== conversation.conversation_id || row.role !== 'user')
    throw fail.invalidParams(ERROR_DETAILS.notAQuestion);
  return { id: row.id, parent: row.parent, text: row.text };
}

/**
 * The root of a conversation whose questions hang from one: the parent no stored message is (the web backend's root
 * is a message of its own only once the conversation was read from the upstream), or a stored root node. Null when
 * it is not known (a conversation stored before roots were kept, not opened since).
 */
async function rootOf(ctx: AppContext, conversation: ConversationRow): Promise<string | null> {
  const rows = await messageRepository(ctx.dbHandle.db).listByConversation(conversation.conversation_id);
  const ids = new Set(rows.map((r) => r.id));
  const above = rows.find((r) => r.parent !== null && !ids.has(r.parent));
  if (above) return above.parent;
  return rows.find((r) => r.parent === null && r.role !== 'user')?.id ?? null;
}

/**
 * Where an ask goes in the conversation's tree (see `Admission.parent`). A parent must be a message of the
 * conversation (or its root); a question without one goes under the root where the source has one.
 */
async function parentOf(
  ctx: AppContext,
  adapter: SourceAdapter,
  conversation: ConversationRow | null,
  request: AskRequest,
  question: Question | null,
): Promise<string | null> {
  if (question) return question.parent;
  const requested = request.parent ?? null;
  if (!conversation) return adapter.rootedTree ? randomUUID() : null;
  if (requested === null) {
    if (adapter.continues?.(request)) throw fail.invalidParams(ERROR_DETAILS.notAnAnswer);
    if (!adapter.rootedTree) return null;
    const root = await rootOf(ctx, conversation);
    if (root === null) throw fail.invalidParams(ERROR_DETAILS.parentNotInConversation);
    return root;
  }
  const row = await messageRepository(ctx.dbHandle.db).findById(requested);
  if (row?.conversation_id === conversation.conversation_id) {
    if (adapter.continues?.(request) && row.role !== 'assistant')
      throw fail.invalidParams(ERROR_DETAILS.notAnAnswer);
    return requested;
  }
  if (!row && adapter.rootedTree && (await rootOf(ctx, conversation)) === requested) return requested;
  throw fail.invalidParams(ERROR_DETAILS.parentNotInConversation);
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
 * Tokens the ask sends, counted with the tokenizer: the question and, for the API source (which sends the
 * conversation), the context it takes along. The web account keeps its context upstream.
 */
async function inputTokensOf(
  ctx: AppContext,
  request: AskRequest,
  conversation: ConversationRow | null,
  question: Question | null,
  parent: string | null,
): Promise<number> {
  const texts = [question?.text ?? request.text_content];
  if (conversation && request.source === 'openai_api') {
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
  const parent = await parentOf(ctx, adapter, conversation, request, question);
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
      ? estimateAskCost(
          config.billing,
          model,
          await inputTokensOf(ctx, request, conversation, question, parent),
        )
      : 0;
  const reservation = await reserve(ctx, user.id, source, model, {
    cap: adapter.sharedCap(config, model),
    estimate,
    alongside,
    known,
  });
  return { conversation, setting, pluginIds, question, parent, reservation };
}
