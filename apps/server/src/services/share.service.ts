import { createHash, randomBytes } from 'node:crypto';
import type {
  ChatMessage,
  ConversationHistory,
  ShareCreated,
  ShareRead,
  SharedConversation,
} from '@cc/contracts';
import { OpenaiWebFileId, oneLine } from '@cc/contracts';
import type { AppContext } from '../app-context';
import type { ConversationRow, ShareRow, UserRow } from '../db/schema';
import { fail, isAppError } from '../errors/app-error';
import { conversationRepository } from '../repositories/conversation.repository';
import type { Executor } from '../repositories/executor';
import { shareRepository } from '../repositories/share.repository';
import { userRepository } from '../repositories/user.repository';
import { UpstreamError } from '../sources/errors';
import { recordAudit } from './audit.service';
import type { AuditActor } from './audit.service';
import { getHistory } from './conversation.service';
import { assertOpenaiFileAccess, relayOpenaiWebFile } from './file.service';
import type { RelayedDownload } from './file.service';

/** Random bytes in a link's token: 192 bits, 32 base64url characters. */
const TOKEN_BYTES = 24;
const TOKEN_SHAPE = /^[A-Za-z0-9_-]{16,128}$/;

function tokenHash(token: string): string {
  return createHash('sha256').update(token).digest('hex');
}

/** The messages of the path shown (root → current node); a missing parent or a cycle ends the walk. */
export function currentPath(history: Pick<ConversationHistory, 'mapping' | 'current_node'>): ChatMessage[] {
  const path: ChatMessage[] = [];
  const seen = new Set<string>();
  let id = history.current_node;
  while (id && !seen.has(id)) {
    seen.add(id);
    const message = history.mapping[id];
    if (!message) break;
    path.push(message);
    id = message.parent ?? null;
  }
  return path.reverse();
}

/**
 * A message as others may see it: system messages (instructions) are left out, and attachments keep only their
 * name, size and id (the id is how the link's page downloads it). Children are limited to the path, so other
 * versions stay private.
 */
function publicMessage(message: ChatMessage, next: string | undefined): ChatMessage {
  const children = next ? [next] : [];
  if (message.source === 'openai_web' && message.metadata?.attachments) {
    const attachments = message.metadata.attachments.map((a) => ({
      name: oneLine(a.name),
      id: a.id,
      size: a.size,
    }));
    return { ...message, children, metadata: { ...message.metadata, attachments } };
  }
  return { ...message, children };
}

const POINTER = /^[a-z][a-z0-9+.-]*:\/\/(.+)$/i;
const isRecord = (v: unknown): v is Record<string, unknown> =>
  !!v && typeof v === 'object' && !Array.isArray(v);

/**
 * The upstream files a shared snapshot shows, from its structured data only: image parts (`asset_pointer`),
 * code-interpreter images (`aggregate_result` `image_url`) and attachment ids. Text never counts.
 */
export function sharedFileIds(messages: ChatMessage[]): Set<string> {
  const ids = new Set<string>();
  const add = (value: unknown, pointer: boolean) => {
    if (typeof value !== 'string') return;
    const id = pointer ? POINTER.exec(value)?.[1] : value;
    if (id && OpenaiWebFileId.safeParse(id).success) ids.add(id);
  };
  for (const m of messages) {
    if (m.source !== 'openai_web') continue;
    if (m.content?.content_type === 'multimodal_text')
      for (const part of m.content.parts as unknown[]) if (isRecord(part)) add(part.asset_pointer, true);
    for (const a of m.metadata?.attachments ?? []) add(a.id, false);
    const aggregate = m.metadata?.aggregate_result;
    const outputs = isRecord(aggregate) && Array.isArray(aggregate.messages) ? aggregate.messages : [];
    for (const o of outputs as unknown[])
      if (isRecord(o) && o.message_type === 'image') add(o.image_url, true);
  }
  return ids;
}

function snapshotOf(history: ConversationHistory): Omit<SharedConversation, 'shared_at'> {
  const path = currentPath(history).filter((m) => m.role !== 'system');
  return {
    title: history.title,
    source: history.source,
    current_model: history.current_model,
    messages: path.map((m, i) => publicMessage({ ...m, parent: path[i - 1]?.id ?? null }, path[i + 1]?.id)),
  };
}

function presentShare(row: ShareRow): ShareRead {
  return {
    id: row.id,
    conversation_id: row.conversation_id,
    title: row.title,
    created_at: row.created_at,
    revoked_at: row.revoked_at,
  };
}

/** Keeps the conversation's `is_public` (the admin list's "public" column) in step with its working links. */
async function syncPublicFlag(db: Executor, conversationId: string): Promise<void> {
  const active = await shareRepository(db).countActiveByConversation(conversationId);
  await conversationRepository(db).update(conversationId, { is_public: active > 0 ? 1 : 0 });
}

/** A new link to the conversation as it is now. Only its owner shares a conversation. */
export async function createShare(
  ctx: AppContext,
  user: UserRow,
  row: ConversationRow,
  actor?: AuditActor,
): Promise<ShareCreated> {
  if (row.user_id !== user.id) throw fail.accessDenied();
  if (!row.is_valid) throw fail.conversationNotFound();
  const snapshot = snapshotOf(await getHistory(ctx, row));
  const token = randomBytes(TOKEN_BYTES).toString('base64url');
  const share = await ctx.dbHandle.db.transaction().execute(async (trx) => {
    const inserted = await shareRepository(trx).insert({
      token_hash: tokenHash(token),
      conversation_id: row.conversation_id,
      user_id: user.id,
      title: row.title,
      snapshot: JSON.stringify(snapshot),
      created_at: new Date().toISOString(),
      revoked_at: null,
    });
    await syncPublicFlag(trx, row.conversation_id);
    await recordAudit(
      ctx,
      actor,
      {
        action: 'share.create',
        targetType: 'conversation',
        targetId: row.conversation_id,
        targetLabel: row.title,
        changes: { share_id: [null, inserted.id] },
      },
      trx,
    );
    return inserted;
  });
  return { ...presentShare(share), token };
}

export async function listOwnShares(ctx: AppContext, userId: number): Promise<ShareRead[]> {
  return (await shareRepository(ctx.dbHandle.db).listByUser(userId)).map(presentShare);
}

async function revoke(ctx: AppContext, share: ShareRow, actor?: AuditActor): Promise<void> {
  await ctx.dbHandle.db.transaction().execute(async (trx) => {
    if (!(await shareRepository(trx).revoke(share.id, new Date().toISOString()))) return;
    await syncPublicFlag(trx, share.conversation_id);
    await recordAudit(
      ctx,
      actor,
      {
        action: 'share.revoke',
        targetType: 'conversation',
        targetId: share.conversation_id,
        targetLabel: share.title,
        changes: { share_id: [share.id, null] },
      },
      trx,
    );
  });
}

/** Revokes one link: its maker or a superuser. Revoking a revoked link changes nothing. */
export async function revokeShare(
  ctx: AppContext,
  user: UserRow,
  shareId: number,
  actor?: AuditActor,
): Promise<ShareRead> {
  const share = await shareRepository(ctx.dbHandle.db).findById(shareId);
  if (!share) throw fail.notFound();
  if (share.user_id !== user.id && !user.is_superuser) throw fail.accessDenied();
  await revoke(ctx, share, actor);
  return presentShare((await shareRepository(ctx.dbHandle.db).findById(shareId)) ?? share);
}

/** Revokes every working link of a conversation (its owner, or a superuser from the admin list). */
export async function revokeConversationShares(
  ctx: AppContext,
  row: ConversationRow,
  actor?: AuditActor,
): Promise<number> {
  const shares = await shareRepository(ctx.dbHandle.db).listActiveByConversation(row.conversation_id);
  for (const share of shares) await revoke(ctx, share, actor);
  return shares.length;
}

type Snapshot = Omit<SharedConversation, 'shared_at'>;

/** The working link behind a token with its snapshot; an unknown, malformed or revoked token is not found. */
async function activeShare(ctx: AppContext, token: string): Promise<{ share: ShareRow; snapshot: Snapshot }> {
  if (!TOKEN_SHAPE.test(token)) throw fail.notFound();
  const share = await shareRepository(ctx.dbHandle.db).findActiveByTokenHash(tokenHash(token));
  if (!share) throw fail.notFound();
  return { share, snapshot: JSON.parse(share.snapshot) as Snapshot };
}

/** The shared view behind a token; an unknown, malformed or revoked token is simply not found. */
export async function viewShare(ctx: AppContext, token: string): Promise<SharedConversation> {
  const { share, snapshot } = await activeShare(ctx, token);
  return { ...snapshot, shared_at: share.created_at };
}

/**
 * The bytes of a file the shared snapshot shows (an uploaded image, an attachment, a generated image), for anyone
 * with the link. Served only while the link works, only for a file the snapshot refers to, and only if its maker
 * may still open it themselves. Every refusal is the same bare 404 as an unknown token, so the route tells
 * nobody whether a file exists.
 */
export async function openSharedFile(
  ctx: AppContext,
  token: string,
  fileId: string,
  signal?: AbortSignal,
): Promise<RelayedDownload> {
  const { share, snapshot } = await activeShare(ctx, token);
  if (!sharedFileIds(snapshot.messages).has(fileId)) throw fail.notFound();
  const owner = await userRepository(ctx.dbHandle.db).findById(share.user_id);
  if (!owner) throw fail.notFound();
  try {
    await assertOpenaiFileAccess(ctx, owner, fileId);
    return await relayOpenaiWebFile(ctx, fileId, signal);
  } catch (e) {
    const gone =
      e instanceof UpstreamError ? e.status === 404 : isAppError(e) && [403, 404].includes(e.status);
    if (gone) throw fail.notFound();
    throw e;
  }
}
