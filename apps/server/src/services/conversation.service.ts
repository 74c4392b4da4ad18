import { ERROR_DETAILS, MAX_OWN_LIST_PAGE, MAX_PINNED_CONVERSATIONS, clip } from '@cc/contracts';
import type {
  ChatSource,
  ConversationBulkRequest,
  ConversationBulkResult,
  ConversationHistory,
  InterpreterInfo,
  ListAllQuery,
  OwnListQuery,
} from '@cc/contracts';
import type { AppContext } from '../app-context';
import type { StopReason } from '../coordination/answer-log';
import type { ConversationRow, UserRow } from '../db/schema';
import { fail, isAppError } from '../errors/app-error';
import { canAccessConversation, canPinConversation } from '../policies/conversation.policy';
import { messageToRow, presentHistory } from '../presenters/conversation.presenter';
import { conversationRepository } from '../repositories/conversation.repository';
import type { Executor } from '../repositories/executor';
import type { ConversationFilter } from '../repositories/conversation.repository';
import { messageRepository } from '../repositories/message.repository';
import { runningAskRepository } from '../repositories/running-ask.repository';
import { shareRepository } from '../repositories/share.repository';
import { userRepository } from '../repositories/user.repository';
import { UpstreamError } from '../sources/errors';
import { generateApiTitle } from '../sources/openai-api';
import { webClient } from '../sources/openai-web/client';
import { convertWebConversation } from '../sources/openai-web/convert';
import { diffChanges, recordAudit } from './audit.service';
import type { AuditActor, AuditChanges } from './audit.service';
import { relayUpstreamUrl } from './file.service';
import type { RelayedDownload } from './file.service';

function modelNameOf(ctx: AppContext) {
  const reverse = new Map(
    Object.entries(ctx.runtime.current().openai_web.model_code_mapping).map(([n, c]) => [c, n]),
  );
  return (code: string | null | undefined) => (code ? (reverse.get(code) ?? code) : null);
}

/**
 * Loads a conversation the actor may act on: unknown → conversation not found, someone else's → 10403, one its owner
 * deleted → conversation already deleted (a superuser still reads and acts on deleted conversations).
 */
export async function getConversationFor(
  ctx: AppContext,
  actor: UserRow,
  conversationId: string,
): Promise<ConversationRow> {
  const row = await conversationRepository(ctx.dbHandle.db).findByUuid(conversationId);
  if (!row) throw fail.conversationNotFound();
  if (!canAccessConversation(actor, row)) throw fail.accessDenied();
  if (!row.is_valid && actor.is_superuser !== 1) throw fail.conversationAlreadyDeleted();
  return row;
}

/**
 * The user's own list: every valid conversation (no `limit`), or one page of it, pinned ones first (see
 * `OwnListQuery`). A page after a conversation that is not the user's (or no longer exists) is not found.
 */
export async function listOwnConversations(
  ctx: AppContext,
  userId: number,
  query: OwnListQuery = {},
): Promise<ConversationRow[]> {
  const repo = conversationRepository(ctx.dbHandle.db);
  if (query.limit === undefined && query.after === undefined) {
    const rows = await repo.list({ userId, validOnly: true });
    // Pinned first, the rest as they were (by last update): the same order as the pages.
    return [...rows.filter((r) => r.pinned_at !== null), ...rows.filter((r) => r.pinned_at === null)];
  }
  let after: ConversationRow | undefined;
  if (query.after !== undefined) {
    after = await repo.findByUuid(query.after);
    if (after?.user_id !== userId) throw fail.conversationNotFound();
  }
  return repo.listOwnPage(userId, query.limit ?? MAX_OWN_LIST_PAGE, after);
}

/**
 * Pins or unpins one of the user's own conversations (a superuser's access to others' does not extend to their
 * pins). At most `MAX_PINNED_CONVERSATIONS` pinned; pinning a pinned one keeps its pin time.
 */
export async function setConversationPinned(
  ctx: AppContext,
  /** Who pins: must own the conversation. */
  actor: UserRow,
  row: ConversationRow,
  /** Pin (true) or unpin (false). */
  pinned: boolean,
  /** Now, injectable for tests. */
  now: Date = new Date(),
): Promise<ConversationRow> {
  if (!canPinConversation(actor, row)) throw fail.accessDenied();
  if (!row.is_valid) throw fail.conversationAlreadyDeleted();
  const repo = conversationRepository(ctx.dbHandle.db);
  if (!pinned) return (await repo.update(row.conversation_id, { pinned_at: null })) ?? row;
  const updated = await repo.pinIfUnderLimit(
    row.conversation_id,
    actor.id,
    MAX_PINNED_CONVERSATIONS,
    now.toISOString(),
  );
  if (!updated) throw fail.tooManyPinnedConversations(null, { max: MAX_PINNED_CONVERSATIONS });
  return updated;
}

export function listAllConversations(
  ctx: AppContext,
  filter: ConversationFilter,
): Promise<ConversationRow[]> {
  return conversationRepository(ctx.dbHandle.db).list(filter);
}

/**
 * The history document. API conversations are read locally. Web conversations are refreshed from the upstream
 * (and mirrored locally); when the upstream is unreachable the local copy is returned, marked `from_cache`. A deleted
 * conversation (hidden upstream) is read locally: reading it does not bring it back.
 */
export async function getHistory(ctx: AppContext, row: ConversationRow): Promise<ConversationHistory> {
  const db = ctx.dbHandle.db;
  const local = async () =>
    presentHistory(row, await messageRepository(db).listByConversation(row.conversation_id));
  if (row.source !== 'openai_web' || !row.is_valid) return local();
  try {
    const upstream = await webClient(ctx.upstream.webTarget(row.server_id)).getConversation(
      row.conversation_id,
    );
    const history = convertWebConversation(row.conversation_id, upstream, modelNameOf(ctx));
    const rows = Object.values(history.mapping).map((m, i) => messageToRow(row.conversation_id, m, i));
    await messageRepository(db).upsert(rows);
    await conversationRepository(db).update(row.conversation_id, {
      current_node: history.current_node,
      current_model: history.current_model ?? row.current_model,
    });
    return { ...history, title: row.title ?? history.title };
  } catch (e) {
    if (e instanceof UpstreamError && e.status === 404) {
      await conversationRepository(db).update(row.conversation_id, { is_valid: 0 });
      throw fail.conversationNotFound(ERROR_DETAILS.conversationGoneUpstream);
    }
    ctx.log.warn({ err: e }, 'upstream history unavailable, serving the local copy');
    return { ...(await local()), from_cache: true };
  }
}

/**
 * Shows another branch: `nodeId` becomes the end of the current path, so a reload, `/conv/{id}` and the admin's view
 * show it. Web conversations keep their current node upstream too (opening one refreshes from there).
 */
export async function setCurrentNode(
  ctx: AppContext,
  row: ConversationRow,
  nodeId: string,
): Promise<ConversationRow> {
  const db = ctx.dbHandle.db;
  const message = await messageRepository(db).findById(nodeId);
  if (message?.conversation_id !== row.conversation_id)
    throw fail.invalidParams(ERROR_DETAILS.notInConversation);
  const updated = await conversationRepository(db).update(row.conversation_id, { current_node: nodeId });
  if (row.source === 'openai_web') {
    await webClient(ctx.upstream.webTarget(row.server_id))
      .patchConversation(row.conversation_id, { current_node: nodeId })
      .catch((err: unknown) => ctx.log.warn({ err }, 'upstream current node not updated'));
  }
  return updated ?? row;
}

/** Renames locally and, for web conversations, upstream too (so a later sync does not revert it). */
export async function renameConversation(
  ctx: AppContext,
  row: ConversationRow,
  title: string,
): Promise<ConversationRow> {
  const updated = await conversationRepository(ctx.dbHandle.db).update(row.conversation_id, { title });
  if (row.source === 'openai_web') {
    await webClient(ctx.upstream.webTarget(row.server_id))
      .patchConversation(row.conversation_id, { title })
      .catch((err: unknown) => ctx.log.warn({ err }, 'upstream rename failed'));
  }
  return updated ?? row;
}

/** Records an administrative action on a conversation (the audit log names it by its title). */
function auditConversation(
  ctx: AppContext,
  actor: AuditActor | undefined,
  action: 'conversation.invalidate' | 'conversation.vanish' | 'conversation.assign',
  row: ConversationRow,
  changes: AuditChanges,
  db: Executor,
): Promise<void> {
  const target = {
    targetType: 'conversation' as const,
    targetId: row.conversation_id,
    targetLabel: row.title,
  };
  return recordAudit(ctx, actor, { action, ...target, changes }, db);
}

/**
 * The answers running in a conversation that is deleted stop at once, on whichever instance runs them: nobody can
 * continue or (vanished) keep what they write, and each holds its user's one ask and an upstream slot. Should the stop
 * not go out, a destroyed conversation's answer still ends at its next write.
 */
async function stopAnswersIn(ctx: AppContext, conversationId: string, reason: StopReason): Promise<void> {
  try {
    const asks = await runningAskRepository(ctx.dbHandle.db).listByConversation(conversationId);
    await Promise.all(asks.map((a) => ctx.coordination.answers.requestStop(a.user_id, a.ask_id, reason)));
  } catch (err) {
    ctx.log.warn({ err }, 'stopping the answers of a deleted conversation failed');
  }
}

/**
 * Invalidates (soft delete); web conversations are also hidden upstream. Done to someone else's conversation (an
 * admin's action), it is recorded in the audit log. An answer running in it stops (what arrived is kept).
 */
export async function deleteConversation(
  ctx: AppContext,
  row: ConversationRow,
  actor?: AuditActor,
): Promise<void> {
  if (!row.is_valid) throw fail.conversationAlreadyDeleted();
  if (row.source === 'openai_web') await hideUpstream(ctx, row);
  await ctx.dbHandle.db.transaction().execute(async (trx) => {
    // Its links stop for good: they would serve again if the conversation ever became valid again (a sync).
    await shareRepository(trx).revokeByConversation(row.conversation_id, new Date().toISOString());
    await conversationRepository(trx).update(row.conversation_id, { is_valid: 0, is_public: 0 });
    if (actor && actor.id !== row.user_id) {
      const changes: AuditChanges = { is_valid: [true, false] };
      await auditConversation(ctx, actor, 'conversation.invalidate', row, changes, trx);
    }
  });
  await stopAnswersIn(ctx, row.conversation_id, 'conversationInvalidated');
}

async function hideUpstream(ctx: AppContext, row: ConversationRow): Promise<void> {
  await webClient(ctx.upstream.webTarget(row.server_id))
    .patchConversation(row.conversation_id, { is_visible: false })
    .catch((err: unknown) => ctx.log.warn({ err }, 'upstream hide failed'));
}

/**
 * Destroys: hidden upstream if still valid, then the row, its messages and its links are removed (and audited). An
 * answer running in it stops.
 */
export async function vanishConversation(
  ctx: AppContext,
  row: ConversationRow,
  actor?: AuditActor,
): Promise<void> {
  if (row.is_valid && row.source === 'openai_web') await hideUpstream(ctx, row);
  const before = { title: row.title, user_id: row.user_id, source: row.source, is_valid: row.is_valid === 1 };
  await ctx.dbHandle.db.transaction().execute(async (trx) => {
    // Its links go too, with the copies of the conversation they hold.
    await shareRepository(trx).deleteByConversation(row.conversation_id);
    await conversationRepository(trx).delete(row.conversation_id);
    await auditConversation(ctx, actor, 'conversation.vanish', row, diffChanges(before, null), trx);
  });
  await stopAnswersIn(ctx, row.conversation_id, 'conversationVanished');
}

/** Gives a conversation to another user (by username), recorded in the audit log with both owners. */
async function assignTo(
  ctx: AppContext,
  row: ConversationRow,
  owner: UserRow,
  actor: AuditActor | undefined,
): Promise<ConversationRow> {
  return ctx.dbHandle.db.transaction().execute(async (trx) => {
    const updated =
      (await conversationRepository(trx).update(row.conversation_id, { user_id: owner.id })) ?? row;
    const previous = row.user_id === null ? null : await userRepository(trx).findById(row.user_id);
    const changes: AuditChanges = {
      user_id: [row.user_id, owner.id],
      owner: [previous?.username ?? null, owner.username],
    };
    await auditConversation(ctx, actor, 'conversation.assign', row, changes, trx);
    return updated;
  });
}

export async function assignConversation(
  ctx: AppContext,
  row: ConversationRow,
  username: string,
  actor?: AuditActor,
): Promise<ConversationRow> {
  const user = await userRepository(ctx.dbHandle.db).findByUsername(username);
  if (!user) throw fail.userNotExist(ERROR_DETAILS.username, { username });
  return assignTo(ctx, row, user, actor);
}

/** A title for a conversation that has none (an existing title is returned as is). */
export async function generateTitle(
  ctx: AppContext,
  row: ConversationRow,
  messageId: string,
): Promise<string> {
  if (row.title) return row.title;
  let title: string | null = null;
  if (row.source === 'openai_web') {
    const r = await webClient(ctx.upstream.webTarget(row.server_id)).genTitle(row.conversation_id, messageId);
    title = r.title ?? null;
  } else {
    const rows = await messageRepository(ctx.dbHandle.db).listByConversation(row.conversation_id);
    const question = rows.find((r) => r.role === 'user')?.text ?? '';
    const answer = rows.find((r) => r.role === 'assistant')?.text ?? '';
    const slot = ctx.upstream.servers('openai_api')[0];
    if (slot) {
      const code = (ctx.runtime.current().openai_api.model_code_mapping as Record<string, string>)[
        row.current_model ?? 'gpt_3_5'
      ];
      title = await generateApiTitle(
        ctx.upstream.target('openai_api', slot),
        code ?? 'gpt-3.5-turbo',
        question,
        answer,
        AbortSignal.timeout(10_000),
      ).catch(() => null);
    }
    title ??= clip(question.trim(), 40) || null;
  }
  if (!title) throw fail.generateTitleFailed();
  await conversationRepository(ctx.dbHandle.db).update(row.conversation_id, { title });
  return title;
}

export async function interpreterInfo(ctx: AppContext, row: ConversationRow): Promise<InterpreterInfo> {
  if ((row.source as ChatSource) !== 'openai_web') throw fail.invalidParams(ERROR_DETAILS.interpreterWebOnly);
  return webClient(ctx.upstream.webTarget(row.server_id)).interpreter(row.conversation_id);
}

/** The upstream download URL of a code-interpreter sandbox file (`sandbox:/mnt/data/…` links). */
export async function interpreterDownloadUrl(
  ctx: AppContext,
  row: ConversationRow,
  messageId: string,
  sandboxPath: string,
): Promise<string> {
  if ((row.source as ChatSource) !== 'openai_web') throw fail.invalidParams(ERROR_DETAILS.interpreterWebOnly);
  try {
    const r = await webClient(ctx.upstream.webTarget(row.server_id)).interpreterDownload(
      row.conversation_id,
      messageId,
      sandboxPath,
    );
    if (r.status !== 'success' || !r.download_url) {
      ctx.log.info({ reason: r.error_message }, 'interpreter file unavailable');
      throw fail.notFound(ERROR_DETAILS.fileNotFound);
    }
    return r.download_url;
  } catch (e) {
    // The interpreter has expired or the path is wrong: the file is gone.
    if (e instanceof UpstreamError && e.status === 404) throw fail.notFound(ERROR_DETAILS.fileNotFound);
    throw e;
  }
}

/** A code-interpreter sandbox file's bytes, through the server. */
export async function interpreterDownloadContent(
  ctx: AppContext,
  row: ConversationRow,
  messageId: string,
  sandboxPath: string,
  signal?: AbortSignal,
): Promise<RelayedDownload> {
  const url = await interpreterDownloadUrl(ctx, row, messageId, sandboxPath);
  return relayUpstreamUrl(ctx, url, sandboxPath.split('/').pop() || 'file', row.server_id, signal);
}

/** The admin table: filters, a page, and the total before paging. */
export async function listConversationsPage(
  ctx: AppContext,
  query: ListAllQuery,
): Promise<{ rows: (ConversationRow & { username: string | null })[]; total: number }> {
  const filter: ConversationFilter = {
    validOnly: query.valid_only,
    isValid: query.is_valid,
    source: query.source,
    userId: query.user_id,
    username: query.username,
    unassigned: query.unassigned,
    matching: query.q,
  };
  const repo = conversationRepository(ctx.dbHandle.db);
  const rows = await repo.adminPage(filter, {
    sort: query.sort,
    desc: query.order === 'desc',
    offset: query.offset,
    limit: query.limit,
  });
  const whole = query.offset === 0 && rows.length < query.limit;
  const owners = [...new Set(rows.flatMap((r) => (r.user_id === null ? [] : [r.user_id])))];
  const [names, total] = await Promise.all([
    userRepository(ctx.dbHandle.db).usernames(owners),
    whole ? rows.length : repo.countMatching(filter),
  ]);
  return {
    rows: rows.map((row) => ({
      ...row,
      username: row.user_id === null ? null : (names.get(row.user_id) ?? null),
    })),
    total,
  };
}

/**
 * One admin action on many conversations: each is done on its own (invalidate and vanish hide web conversations
 * upstream, as the single actions do), and a failure of one does not stop the others.
 */
export async function bulkConversationAction(
  ctx: AppContext,
  input: ConversationBulkRequest,
  /** Who acts (each conversation changed is recorded in the audit log). */
  actor?: AuditActor,
): Promise<ConversationBulkResult> {
  const repo = conversationRepository(ctx.dbHandle.db);
  let owner: UserRow | undefined;
  if (input.action === 'assign') {
    owner = await userRepository(ctx.dbHandle.db).findByUsername(input.username ?? '');
    if (!owner) {
      throw input.username
        ? fail.userNotExist(ERROR_DETAILS.username, { username: input.username })
        : fail.userNotExist();
    }
  }
  const result: ConversationBulkResult = { succeeded: [], failed: [] };
  for (const id of new Set(input.conversation_ids)) {
    try {
      const row = await repo.findByUuid(id);
      if (!row) throw fail.conversationNotFound();
      if (input.action === 'invalidate') await deleteConversation(ctx, row, actor);
      else if (input.action === 'vanish') await vanishConversation(ctx, row, actor);
      else if (owner) await assignTo(ctx, row, owner, actor);
      result.succeeded.push(id);
    } catch (e) {
      if (!isAppError(e)) ctx.log.error({ err: e, conversation_id: id }, 'bulk conversation action failed');
      result.failed.push({ conversation_id: id, error: isAppError(e) ? e.messageKey : 'errors.internal' });
    }
  }
  return result;
}
