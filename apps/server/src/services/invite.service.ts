import { createHash, randomBytes } from 'node:crypto';
import type {
  InviteAccept,
  InviteCreate,
  InviteCreated,
  InviteRead,
  InviteRefusal,
  InviteStatus,
} from '@cc/contracts';
import type { AppContext } from '../app-context';
import type { InviteRow } from '../db/schema';
import { fail } from '../errors/app-error';
import type { LoadedUser } from '../presenters/user.presenter';
import type { Executor } from '../repositories/executor';
import { groupRepository } from '../repositories/group.repository';
import { inviteRepository } from '../repositories/invite.repository';
import type { InviteListRow } from '../repositories/invite.repository';
import { recordAudit } from './audit.service';
import type { AuditActor } from './audit.service';
import { hashPassword } from './password';
import { ssoButton } from './sso-options';
import { insertUser } from './user.service';

/** Random bytes in an invite's token: 192 bits, 32 base64url characters. */
const TOKEN_BYTES = 24;
const TOKEN_SHAPE = /^[A-Za-z0-9_-]{16,128}$/;

export function inviteTokenHash(token: string): string {
  return createHash('sha256').update(token).digest('hex');
}

/** Why an invite does not work at `now`, or null when it does. */
function refusalOf(row: InviteRow | undefined, now: Date): InviteRefusal | null {
  if (!row) return 'unknown';
  if (row.revoked_at) return 'revoked';
  if (row.expires_at <= now.toISOString()) return 'expired';
  if (row.max_uses !== null && row.uses >= row.max_uses) return 'used_up';
  return null;
}

function presentInvite(row: InviteListRow, now: Date): InviteRead {
  return {
    id: row.id,
    expires_at: row.expires_at,
    max_uses: row.max_uses,
    uses: row.uses,
    group_id: row.group_id,
    group_name: row.group_name,
    created_at: row.created_at,
    created_by: row.created_by_name,
    revoked_at: row.revoked_at,
    usable: refusalOf(row, now) === null,
  };
}

/** A refusal as the error the invite page shows (`result.reason` says which). */
const refused = (reason: InviteRefusal) => fail.inviteNotUsable({ reason });

export interface CreateInviteInput {
  invite: InviteCreate;
  /** The superuser who makes it (audited, shown in the list). */
  actor: AuditActor;
}

/** A new invite link; the token is returned once and only its digest is kept. */
export async function createInvite(ctx: AppContext, input: CreateInviteInput): Promise<InviteCreated> {
  const { invite, actor } = input;
  const db = ctx.dbHandle.db;
  const group = invite.group_id === null ? null : await groupRepository(db).findById(invite.group_id);
  if (invite.group_id !== null && !group) throw fail.groupNotExist();
  const token = randomBytes(TOKEN_BYTES).toString('base64url');
  const now = new Date();
  const expires = new Date(now.getTime() + invite.expires_in_hours * 3600_000);
  const row = await db.transaction().execute(async (trx) => {
    const inserted = await inviteRepository(trx).insert({
      token_hash: inviteTokenHash(token),
      expires_at: expires.toISOString(),
      max_uses: invite.max_uses,
      group_id: invite.group_id,
      created_by: actor.id,
      created_at: now.toISOString(),
      revoked_at: null,
    });
    await recordAudit(
      ctx,
      actor,
      {
        action: 'invite.create',
        targetType: 'invite',
        targetId: inserted.id,
        targetLabel: `#${inserted.id}`,
        changes: {
          expires_at: [null, inserted.expires_at],
          max_uses: [null, inserted.max_uses],
          group: [null, group?.name ?? null],
        },
      },
      trx,
    );
    return inserted;
  });
  const listed = await inviteRepository(db).findById(row.id);
  if (!listed) throw fail.notFound();
  return { ...presentInvite(listed, now), token };
}

export async function listInvites(ctx: AppContext): Promise<InviteRead[]> {
  const now = new Date();
  return (await inviteRepository(ctx.dbHandle.db).list()).map((r) => presentInvite(r, now));
}

/** Revokes an invite; revoking a revoked one changes nothing. */
export async function revokeInvite(ctx: AppContext, id: number, actor: AuditActor): Promise<InviteRead> {
  const db = ctx.dbHandle.db;
  const row = await inviteRepository(db).findById(id);
  if (!row) throw fail.notFound();
  await db.transaction().execute(async (trx) => {
    if (!(await inviteRepository(trx).revoke(id, new Date().toISOString()))) return;
    await recordAudit(
      ctx,
      actor,
      {
        action: 'invite.revoke',
        targetType: 'invite',
        targetId: id,
        targetLabel: `#${id}`,
        changes: { revoked: [false, true] },
      },
      trx,
    );
  });
  const after = await inviteRepository(db).findById(id);
  if (!after) throw fail.notFound();
  return presentInvite(after, new Date());
}

async function findByToken(db: Executor, token: string): Promise<InviteRow | undefined> {
  if (!TOKEN_SHAPE.test(token)) return undefined;
  return inviteRepository(db).findByTokenHash(inviteTokenHash(token));
}

/** What the public invite page shows: whether the link works, and the sign-in button when SSO is on. */
export async function inviteStatus(ctx: AppContext, token: string): Promise<InviteStatus> {
  const row = await findByToken(ctx.dbHandle.db, token);
  const refusal = refusalOf(row, new Date());
  const button = ssoButton(ctx);
  return {
    usable: refusal === null,
    refusal,
    expires_at: row?.expires_at ?? null,
    sso_start_path:
      button && refusal === null ? `${button.start_path}?invite=${encodeURIComponent(token)}` : null,
    sso_label: button?.label ?? null,
  };
}

/**
 * Counts one use of the invite in the caller's transaction, or throws why it cannot be used. The count is one
 * conditional update, so two parallel uses of a single-use link make one account, never two.
 */
export async function claimInvite(trx: Executor, token: string): Promise<InviteRow> {
  const row = await findByToken(trx, token);
  const refusal = refusalOf(row, new Date());
  if (!row || refusal) throw refused(refusal ?? 'unknown');
  if (!(await inviteRepository(trx).claimUse(row.id, new Date().toISOString()))) {
    throw refused(refusalOf(await inviteRepository(trx).findById(row.id), new Date()) ?? 'used_up');
  }
  return row;
}

/** The audit entry of an invite's use, under the account it made. */
export async function recordInviteUse(
  ctx: AppContext,
  trx: Executor,
  invite: InviteRow,
  user: LoadedUser,
  address: string | null,
  via: 'password' | 'sso',
): Promise<void> {
  await recordAudit(
    ctx,
    { id: user.row.id, name: user.row.username, address },
    {
      action: 'invite.use',
      targetType: 'invite',
      targetId: invite.id,
      targetLabel: `#${invite.id}`,
      changes: { user: [null, user.row.username], via: [null, via] },
    },
    trx,
  );
}

export interface AcceptInviteInput {
  token: string;
  account: InviteAccept;
  /** The visitor's address (audit). */
  ip: string;
}

/**
 * Creates an account through an invite link with the new-user defaults (and the invite's group), counting the
 * use in the same transaction: a taken username gives the use back.
 */
export async function acceptInvite(ctx: AppContext, input: AcceptInviteInput): Promise<LoadedUser> {
  const { account } = input;
  // Refuse a dead link before the (slow) password hash.
  const before = await findByToken(ctx.dbHandle.db, input.token);
  const refusal = refusalOf(before, new Date());
  if (refusal) throw refused(refusal);
  const hashed = await hashPassword(account.password);
  return ctx.dbHandle.db.transaction().execute(async (trx) => {
    const invite = await claimInvite(trx, input.token);
    const user = await insertUser(
      ctx,
      trx,
      {
        user: {
          username: account.username,
          password: account.password,
          nickname: account.nickname ?? account.username,
          email: account.email ?? '',
          is_active: true,
          is_superuser: false,
          is_verified: false,
        },
        groupId: invite.group_id,
        selfClaimed: true,
      },
      hashed,
    );
    await recordInviteUse(ctx, trx, invite, user, input.ip, 'password');
    return user;
  });
}
