import type { GroupTemplate, UserGroupWrite } from '@cc/contracts';
import type { AppContext } from '../app-context';
import type { UserGroupRow, UserRow } from '../db/schema';
import { fail } from '../errors/app-error';
import { nowIso } from '../repositories/executor';
import type { Executor } from '../repositories/executor';
import { groupRepository } from '../repositories/group.repository';
import type { StoredGroup } from '../repositories/group.repository';
import { quotaRepository } from '../repositories/quota.repository';
import { userSettingRepository } from '../repositories/user-setting.repository';
import { userRepository } from '../repositories/user.repository';
import { diffChanges, recordAudit } from './audit.service';
import type { AuditActor } from './audit.service';
import { applyTemplate, leaveTemplate, templateOf } from './group-template';
import { auditedSettings, isSecretSetting } from './user-settings';

/** A group with its member count (what the presenter needs). */
export interface LoadedGroup {
  row: UserGroupRow;
  memberCount: number;
}

function stored(write: UserGroupWrite): StoredGroup {
  return {
    name: write.name,
    openai_web: JSON.stringify(write.openai_web),
    openai_api: JSON.stringify(write.openai_api),
    budgets: write.budgets ? JSON.stringify(write.budgets) : null,
  };
}

/** The group's fields as the audit log compares them. */
function audited(row: UserGroupRow): { name: string } & GroupTemplate {
  return { name: row.name, ...templateOf(row) };
}

async function load(db: Executor, id: number): Promise<LoadedGroup> {
  const row = await groupRepository(db).findById(id);
  if (!row) throw fail.groupNotExist();
  return { row, memberCount: (await groupRepository(db).memberIds(id)).length };
}

async function checkNameFree(db: Executor, name: string, exceptId?: number): Promise<void> {
  const taken = await groupRepository(db).findByName(name);
  if (taken && taken.id !== exceptId) throw fail.groupAlreadyExists(null, { name });
}

export async function listGroups(ctx: AppContext): Promise<LoadedGroup[]> {
  const db = ctx.dbHandle.db;
  const [rows, counts] = await Promise.all([
    groupRepository(db).listAll(),
    groupRepository(db).memberCounts(),
  ]);
  return rows.map((row) => ({ row, memberCount: counts.get(row.id) ?? 0 }));
}

export async function getGroup(ctx: AppContext, id: number): Promise<LoadedGroup> {
  return load(ctx.dbHandle.db, id);
}

export async function createGroup(
  ctx: AppContext,
  write: UserGroupWrite,
  actor: AuditActor,
): Promise<LoadedGroup> {
  return ctx.dbHandle.db.transaction().execute(async (trx) => {
    await checkNameFree(trx, write.name);
    const row = await groupRepository(trx).insert(stored(write), nowIso());
    await recordAudit(
      ctx,
      actor,
      {
        action: 'group.create',
        targetType: 'group',
        targetId: row.id,
        targetLabel: row.name,
        changes: diffChanges(null, audited(row)),
      },
      trx,
    );
    return { row, memberCount: 0 };
  });
}

/**
 * Saves a group and changes every member at once, in one transaction: the fields this save changes are written
 * into each member's settings (see `withTemplate`).
 */
export async function updateGroup(
  ctx: AppContext,
  id: number,
  write: UserGroupWrite,
  actor: AuditActor,
): Promise<LoadedGroup> {
  return ctx.dbHandle.db.transaction().execute(async (trx) => {
    const groups = groupRepository(trx);
    const before = await groups.findById(id);
    if (!before) throw fail.groupNotExist();
    await checkNameFree(trx, write.name, id);
    await groups.update(id, stored(write), nowIso());
    const members = await groups.memberIds(id);
    const previous = templateOf(before);
    const template: GroupTemplate = {
      openai_web: write.openai_web,
      openai_api: write.openai_api,
      budgets: write.budgets ?? null,
    };
    for (const userId of members) await applyTemplate(ctx, trx, userId, template, previous);
    const after = await load(trx, id);
    await recordAudit(
      ctx,
      actor,
      {
        action: 'group.update',
        targetType: 'group',
        targetId: id,
        targetLabel: before.name,
        changes: diffChanges(audited(before), audited(after.row)),
        context: { members: [null, members.length] },
        onlyIfChanged: true,
      },
      trx,
    );
    return after;
  });
}

/** A group's name, for the audit log beside its id (null: no group, or one gone). */
export async function groupName(db: Executor, id: number | null): Promise<string | null> {
  return id === null ? null : ((await groupRepository(db).findById(id))?.name ?? null);
}

type AuditedSettings = ReturnType<typeof auditedSettings>;

/** A member's settings and counters as the audit log compares them; null when they have none. */
async function memberSettings(db: Executor, userId: number): Promise<AuditedSettings | null> {
  const setting = await userSettingRepository(db).findByUserId(userId);
  if (!setting) return null;
  return auditedSettings({ setting, counters: await quotaRepository(db).listForUsers([userId]) });
}

/**
 * Deletes a group; its members leave it (their own settings come back, see `leaveTemplate`). Each member gets an
 * entry of their own, as leaving the group by an edit of the user records: the group left and the settings that
 * changed with it.
 */
export async function deleteGroup(ctx: AppContext, id: number, actor: AuditActor): Promise<void> {
  await ctx.dbHandle.db.transaction().execute(async (trx) => {
    const before = await groupRepository(trx).findById(id);
    if (!before) throw fail.groupNotExist();
    const members = await groupRepository(trx).memberIds(id);
    const left: { user: UserRow; settings: AuditedSettings | null }[] = [];
    for (const userId of members) {
      const user = await userRepository(trx).findById(userId);
      if (!user) continue;
      left.push({ user, settings: await memberSettings(trx, userId) });
      await leaveTemplate(trx, userId, templateOf(before));
    }
    await groupRepository(trx).deleteById(id);
    for (const { user, settings } of left) {
      const after = await memberSettings(trx, user.id);
      await recordAudit(
        ctx,
        actor,
        {
          action: 'user.update',
          targetType: 'user',
          targetId: user.id,
          targetLabel: user.username,
          changes: {
            group_id: [id, null],
            group: [before.name, null],
            ...diffChanges(settings, after, isSecretSetting),
          },
        },
        trx,
      );
    }
    await recordAudit(
      ctx,
      actor,
      {
        action: 'group.delete',
        targetType: 'group',
        targetId: id,
        targetLabel: before.name,
        changes: { ...diffChanges(audited(before), null), members: [members.length, null] },
      },
      trx,
    );
  });
}

/**
 * A user joins a group (its whole template is applied) or leaves it (their own settings come back where they still
 * follow the group); moving from one group to another is leaving the first, then joining the second (what the first
 * gave and the second does not set — a budget — goes back to the user's own). In the caller's transaction.
 */
export async function setUserGroup(
  ctx: AppContext,
  db: Executor,
  userId: number,
  groupId: number | null,
  currentGroupId: number | null,
): Promise<void> {
  const group = groupId === null ? undefined : await groupRepository(db).findById(groupId);
  if (groupId !== null && !group) throw fail.groupNotExist();
  const current =
    currentGroupId === null || currentGroupId === groupId
      ? undefined
      : await groupRepository(db).findById(currentGroupId);
  if (current) await leaveTemplate(db, userId, templateOf(current));
  if (group) await applyTemplate(ctx, db, userId, templateOf(group), null);
}
