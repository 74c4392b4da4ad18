import { createHash, randomBytes } from 'node:crypto';
import type {
  ChatMessage,
  ConversationHistory,
  ShareCreated,
  ShareRead,
  SharedConversation,
} from '@cc/contracts';
import type { AppContext } from '../app-context';
import type { ConversationRow, ShareRow, UserRow } from '../db/schema';
import { fail } from '../errors/app-error';
import { conversationRepository } from '../repositories/conversation.repository';
import type { Executor } from '../repositories/executor';
import { shareRepository } from '../repositories/share.repository';
import { recordAudit } from './audit.service';
import type { AuditActor } from './audit.service';
import { getHistory } from './conversation.service';

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
 * A message as others may see it: system messages (instructions) are left out, and uploads are named but not
 * pointed at (attachment ids dropped). Children are limited to the path, so other versions stay private.
 */
function publicMessage(message: ChatMessage, next: string | undefined): ChatMessage {
  const children = next ? [next] : [];
  if (message.source === 'openai_web' && message.metadata?.attachments) {
    const attachments = message.metadata.attachments.map((a) => ({ name: a.name, id: '', size: a.size }));
    return { ...message, children, metadata: { ...message.metadata, attachments } };
  }
  return { ...message, children };
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

/** The shared view behind a token; an unknown, malformed or revoked token is simply not found. */
export async function viewShare(ctx: AppContext, token: string): Promise<SharedConversation> {
  if (!TOKEN_SHAPE.test(token)) throw fail.notFound();
  const share = await shareRepository(ctx.dbHandle.db).findActiveByTokenHash(tokenHash(token));
  if (!share) throw fail.notFound();
  const snapshot = JSON.parse(share.snapshot) as Omit<SharedConversation, 'shared_at'>;
  return { ...snapshot, shared_at: share.created_at };
}
