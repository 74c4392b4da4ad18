import { randomBytes } from 'node:crypto';
import { API_MODELS, MASKED_SECRET, WEB_MODELS } from '@cc/contracts';
import type {
  UserCreate,
  UserFilterQuery,
  UserListQuery,
  UserRef,
  UserRefsQuery,
  UserSettingUpdate,
  UserUpdateAdmin,
  UserUpdateSelf,
} from '@cc/contracts';
import type { AppContext } from '../app-context';
import type { UserRow, UserRowUpdate } from '../db/schema';
import { fail } from '../errors/app-error';
import type { LoadedUser } from '../presenters/user.presenter';
import type { Executor } from '../repositories/executor';
import { int, nowIso } from '../repositories/executor';
import { fileRepository } from '../repositories/file.repository';
import { quotaRepository } from '../repositories/quota.repository';
import { sessionRepository } from '../repositories/session.repository';
import { userSettingRepository } from '../repositories/user-setting.repository';
import { userRepository } from '../repositories/user.repository';
import type { UserFilter } from '../repositories/user.repository';
import { diffChanges, recordAudit } from './audit.service';
import type { AuditActor } from './audit.service';
import { removeStoredFiles } from './file-storage';
import { groupName, setUserGroup } from './group.service';
import { NO_LOCAL_PASSWORD, hashPassword } from './password';
import {
  auditedSettings,
  isSecretSetting,
  keepUnchangedCounts,
  sealedCustomKey,
  splitSettings,
} from './user-settings';
import { assertUsernameFree } from './username-look-alike';

async function loadMany(db: Executor, rows: UserRow[]): Promise<LoadedUser[]> {
  const ids = rows.map((r) => r.id);
  const [settings, counters] = await Promise.all([
    userSettingRepository(db).findByUserIds(ids),
    quotaRepository(db).listForUsers(ids),
  ]);
  const byUser = new Map(settings.map((s) => [s.user_id, s]));
  const countersOf = new Map<number, typeof counters>();
  for (const c of counters) {
    const list = countersOf.get(c.user_id);
    if (list) list.push(c);
    else countersOf.set(c.user_id, [c]);
  }
  return rows.flatMap((row) => {
    const setting = byUser.get(row.id);
    return setting ? [{ row, setting, counters: countersOf.get(row.id) ?? [] }] : [];
  });
}

function userFilter(query: UserFilterQuery): UserFilter {
  return {
    matching: query.q,
    groupId: query.group === 'none' ? null : query.group,
    active: query.active,
    superuser: query.superuser,
  };
}

/** A user's fields as the audit log compares them (no password hash: a new password is recorded masked). */
function auditedUser(row: UserRow) {
  return {
    username: row.username,
    nickname: row.nickname,
    email: row.email,
    avatar: row.avatar,
    remark: row.remark,
    is_active: row.is_active === 1,
    is_superuser: row.is_superuser === 1,
    is_verified: row.is_verified === 1,
    group_id: row.group_id,
  };
}

/** Loads one user with settings and counters; 404 when missing. */
export async function getUser(
  ctx: AppContext,
  userId: number,
  db: Executor = ctx.dbHandle.db,
): Promise<LoadedUser> {
  const row = await userRepository(db).findById(userId);
  if (!row) throw fail.userNotExist();
  ctx.activity.apply(row);
  const [loaded] = await loadMany(db, [row]);
  if (!loaded) throw fail.userNotExist();
  return loaded;
}

/** A user whose row the caller holds (from the session), with settings and counters; 404 when they are gone. */
export async function loadUserSettings(ctx: AppContext, row: UserRow): Promise<LoadedUser> {
  const [loaded] = await loadMany(ctx.dbHandle.db, [row]);
  if (!loaded) throw fail.userNotExist();
  return loaded;
}

/** One page of users with settings and counters (read for that page only) and the number that match. */
export async function listUsersPage(
  ctx: AppContext,
  query: UserListQuery,
): Promise<{ users: LoadedUser[]; total: number }> {
  const db = ctx.dbHandle.db;
  const repo = userRepository(db);
  const filter = userFilter(query);
  // Sorted and filtered by activity in the database: the marks waiting to be written go first.
  await ctx.activity.flush();
  const rows = await repo.page(filter, {
    sort: query.sort,
    desc: query.order === 'desc',
    offset: query.offset,
    limit: query.limit,
  });
  const whole = query.offset === 0 && rows.length < query.limit;
  const [users, total] = await Promise.all([
    loadMany(db, rows),
    whole ? rows.length : repo.countMatching(filter),
  ]);
  return { users, total };
}

/** Id and names of the users that match (for "select every match" and pickers), by id. */
export function listUserRefs(ctx: AppContext, query: UserRefsQuery): Promise<UserRef[]> {
  return userRepository(ctx.dbHandle.db).refs(userFilter(query), query.limit);
}

/** Settings that allow everything: the initial admin's. */
export function unlimitedSettings(): Omit<UserSettingUpdate, 'openai_web_chat_status'> {
  const base = {
    allow_to_use: true,
    valid_until: null,
    max_conv_count: -1,
    total_ask_count: -1,
    rate_limits: [],
    daily_available_time_slots: [],
  };
  return {
    credits: -1,
    openai_web: {
      ...base,
      available_models: [...WEB_MODELS],
      per_model_ask_count: {},
      allow_uploading_attachments: true,
      allow_uploading_multimodal_images: true,
    },
    openai_api: {
      ...base,
      available_models: [...API_MODELS],
      per_model_ask_count: {},
      allow_custom_openai_api: true,
      custom_openai_api_settings: { url: null, key: null },
    },
  };
}

export interface CreateUserInput {
  /** Validated create payload. */
  user: UserCreate;
  /** Settings to start with; default: the config's `user_defaults`. */
  settings?: Omit<UserSettingUpdate, 'openai_web_chat_status'>;
  /** Who creates it (recorded in the audit log); none at boot. */
  actor?: AuditActor;
  /** A group the new user joins (its template applied, as when an admin moves them into it); default none. */
  groupId?: number | null;
  /** The stored hash instead of hashing `user.password` (an account made by single sign-on has none usable). */
  hashedPassword?: string;
  /** The username and email are the person's own word (an invite sign-up): single sign-on never links to it. */
  selfClaimed?: boolean;
}

/** Creates a user with its settings row and counters; a taken username → "user already exists". */
export async function createUser(ctx: AppContext, input: CreateUserInput): Promise<LoadedUser> {
  const hashed = input.hashedPassword ?? (await hashPassword(input.user.password));
  return ctx.dbHandle.db.transaction().execute((trx) => insertUser(ctx, trx, input, hashed));
}

/** `createUser` inside the caller's transaction, with the password already hashed. */
export async function insertUser(
  ctx: AppContext,
  trx: Executor,
  input: CreateUserInput,
  hashed: string,
): Promise<LoadedUser> {
  const { user } = input;
  const settings = input.settings ?? ctx.runtime.current().user_defaults;
  // Someone choosing their own name (an invite sign-up) is not told whose name it looks like.
  await assertUsernameFree(trx, user.username, { nameOther: !input.selfClaimed });
  const now = nowIso();
  let row = await userRepository(trx).insert({
    username: user.username,
    nickname: user.nickname,
    email: user.email,
    hashed_password: hashed,
    avatar: user.avatar ?? null,
    remark: user.remark ?? null,
    is_active: int(user.is_active),
    is_superuser: int(user.is_superuser),
    is_verified: int(user.is_verified),
    self_claimed: int(input.selfClaimed ?? false),
    last_active_time: null,
    create_time: now,
    update_time: now,
  });
  const { stored, counters } = splitSettings(ctx.secretBox, settings, null);
  await userSettingRepository(trx).insert(row.id, stored);
  await quotaRepository(trx).replaceForUser(row.id, counters);
  if (input.groupId != null) {
    await setUserGroup(ctx, trx, row.id, input.groupId, null);
    row = (await userRepository(trx).update(row.id, { group_id: input.groupId })) ?? row;
  }
  await recordAudit(
    ctx,
    input.actor,
    {
      action: 'user.create',
      targetType: 'user',
      targetId: row.id,
      targetLabel: row.username,
      changes: {
        ...diffChanges(null, auditedUser(row)),
        password: [null, hashed === NO_LOCAL_PASSWORD ? null : MASKED_SECRET],
      },
    },
    trx,
  );
  return getUser(ctx, row.id, trx);
}

export interface UpdateUserInput {
  userId: number;
  /** Self-edit (allow-list) or admin update. */
  patch: UserUpdateSelf | UserUpdateAdmin;
  /** The acting session: kept when the password changes, every other session of the user is revoked. */
  actingSessionId?: string;
  /** The acting user: an admin may not demote or deactivate themself. */
  actorId?: number;
  /**
   * A superuser makes the change (the admin pages, or their own profile): a new email or username is given, not the
   * person's own word, and single sign-on may link to it. Otherwise a changed email marks the account self-claimed.
   */
  vouched?: boolean;
  /** Who changes it (recorded in the audit log). */
  actor?: AuditActor;
}

/**
 * True when taking superuser rights from this user would leave no active superuser, so nobody could reach the
 * admin any more. `activeSuperusers` comes from `lockActiveSuperusers` in the same transaction, before the read.
 */
function isLastActiveSuperuser(user: UserRow, activeSuperusers: number): boolean {
  return user.is_superuser === 1 && user.is_active === 1 && activeSuperusers <= 1;
}

/**
 * Applies a user update; a new password revokes the user's other sessions, deactivation revokes all. An admin
 * cannot demote or deactivate themself, and nobody can demote or deactivate the last active superuser.
 */
export async function updateUser(ctx: AppContext, input: UpdateUserInput): Promise<LoadedUser> {
  const { patch, userId } = input;
  const admin = patch as UserUpdateAdmin;
  if (userId === input.actorId) {
    if (admin.is_superuser === false) throw fail.cannotDemoteSelf();
    if (admin.is_active === false) throw fail.cannotDeactivateSelf();
  }
  const revokesAdmin = admin.is_superuser === false || admin.is_active === false;
  const hashed = patch.password ? await hashPassword(patch.password) : undefined;
  const updated = await ctx.dbHandle.db.transaction().execute(async (trx) => {
    const users = userRepository(trx);
    // The lock comes before the read, so the target's flags are those the check counts with.
    const active = revokesAdmin ? await users.lockActiveSuperusers() : null;
    const existing = await users.findById(userId);
    if (!existing) throw fail.userNotExist();
    if (active !== null && isLastActiveSuperuser(existing, active)) throw fail.lastActiveSuperuser();
    if (admin.username !== undefined && admin.username !== existing.username)
      await assertUsernameFree(trx, admin.username, { exceptId: userId, nameOther: true });
    const set: UserRowUpdate = { update_time: nowIso() };
    if (patch.email !== undefined) set.email = patch.email;
    const renamed = admin.username !== undefined && admin.username !== existing.username;
    if ((patch.email !== undefined && patch.email !== existing.email) || renamed)
      set.self_claimed = input.vouched ? 0 : 1;
    if (patch.nickname !== undefined) set.nickname = patch.nickname;
    if (patch.avatar !== undefined) set.avatar = patch.avatar;
    if (hashed) set.hashed_password = hashed;
    if (admin.username !== undefined) set.username = admin.username;
    if (admin.remark !== undefined) set.remark = admin.remark;
    if (admin.is_active !== undefined) set.is_active = int(admin.is_active);
    if (admin.is_superuser !== undefined) set.is_superuser = int(admin.is_superuser);
    if (admin.is_verified !== undefined) set.is_verified = int(admin.is_verified);
    // Joining or leaving a group changes the settings: the audit entry says how, with the group.
    const regrouped = admin.group_id !== undefined && admin.group_id !== existing.group_id;
    const settingsBefore = regrouped ? auditedSettings(await getUser(ctx, userId, trx)) : null;
    if (regrouped) {
      await setUserGroup(ctx, trx, userId, admin.group_id ?? null, existing.group_id);
      set.group_id = admin.group_id;
    }
    await users.update(userId, set);
    const sessions = sessionRepository(trx);
    if (admin.is_active === false) await sessions.deleteForUser(userId);
    else if (hashed) await sessions.deleteForUser(userId, input.actingSessionId);
    const loaded = await getUser(ctx, userId, trx);
    const changes = diffChanges(auditedUser(existing), auditedUser(loaded.row));
    if (settingsBefore) {
      // The group by its name too: the id alone says nothing to a reader, nor once the group is deleted.
      changes.group = [await groupName(trx, existing.group_id), await groupName(trx, loaded.row.group_id)];
      Object.assign(changes, diffChanges(settingsBefore, auditedSettings(loaded), isSecretSetting));
    }
    if (hashed) changes.password = [MASKED_SECRET, MASKED_SECRET];
    await recordAudit(
      ctx,
      input.actor,
      {
        action: 'user.update',
        targetType: 'user',
        targetId: userId,
        targetLabel: existing.username,
        changes,
        onlyIfChanged: true,
      },
      trx,
    );
    return loaded;
  });
  if (admin.is_active === false) await stopAnswerOf(ctx, userId);
  return updated;
}

/** A deactivated or deleted user's answer in flight stops at once, on whichever instance it runs. */
async function stopAnswerOf(ctx: AppContext, userId: number): Promise<void> {
  await ctx.coordination.answers
    .requestStop(userId, null, 'deactivated')
    .catch((err: unknown) => ctx.log.warn({ err }, 'stopping the answer of a deactivated user failed'));
}

/**
 * Deletes a user: settings, counters, sessions and file records go with the row, then the local copies of the
 * files they uploaded are removed from disk. An admin cannot delete themself, nor anyone the last active
 * superuser.
 */
export async function deleteUser(
  ctx: AppContext,
  userId: number,
  actorId: number,
  /** Who deletes it (recorded in the audit log). */
  actor?: AuditActor,
): Promise<void> {
  if (userId === actorId) throw fail.cannotDeleteSelf();
  const storageNames = await ctx.dbHandle.db.transaction().execute(async (trx) => {
    const users = userRepository(trx);
    const active = await users.lockActiveSuperusers();
    const existing = await users.findById(userId);
    if (!existing) throw fail.userNotExist();
    if (isLastActiveSuperuser(existing, active)) throw fail.lastActiveSuperuser();
    const names = await fileRepository(trx).storageNamesOf(userId);
    if (!(await users.deleteById(userId))) throw fail.userNotExist();
    await recordAudit(
      ctx,
      actor,
      {
        action: 'user.delete',
        targetType: 'user',
        targetId: userId,
        targetLabel: existing.username,
        changes: diffChanges(auditedUser(existing), null),
      },
      trx,
    );
    return names;
  });
  await stopAnswerOf(ctx, userId);
  await removeStoredFiles(ctx, storageNames);
}

/** Replaces a user's per-source settings and counters atomically. */
export async function updateUserSettings(
  ctx: AppContext,
  userId: number,
  update: UserSettingUpdate,
  /** Who changes them (recorded in the audit log). */
  actor?: AuditActor,
): Promise<LoadedUser> {
  const loaded = await ctx.dbHandle.db.transaction().execute(async (trx) => {
    const before = await getUser(ctx, userId, trx);
    const current = before.setting;
    const { stored, counters: sent } = splitSettings(ctx.secretBox, update, sealedCustomKey(current));
    const counters = update.counts_seen
      ? keepUnchangedCounts(sent, before.counters, update.counts_seen)
      : sent;
    await userSettingRepository(trx).update(userId, stored);
    await quotaRepository(trx).replaceForUser(userId, counters);
    const after = await getUser(ctx, userId, trx);
    const changes = diffChanges(auditedSettings(before), auditedSettings(after), isSecretSetting);
    await recordAudit(
      ctx,
      actor,
      {
        action: 'user.settings',
        targetType: 'user',
        targetId: userId,
        targetLabel: before.row.username,
        changes,
        onlyIfChanged: true,
      },
      trx,
    );
    return after;
  });
  // Resetting the status to idling frees a user whose ask is stuck (the lease would expire anyway).
  if (update.openai_web_chat_status === 'idling') await ctx.coordination.chatStatus.release(userId);
  return loaded;
}

/** Frees a user whose chat status is stuck (asking/queueing → idling); quotas are left as they are. */
export async function resetChatStatus(
  ctx: AppContext,
  userId: number,
  actor: AuditActor,
): Promise<LoadedUser> {
  const loaded = await getUser(ctx, userId);
  const before = (await ctx.coordination.chatStatus.get(userId)) ?? 'idling';
  await ctx.coordination.chatStatus.release(userId);
  await recordAudit(ctx, actor, {
    action: 'user.reset_chat_status',
    targetType: 'user',
    targetId: userId,
    targetLabel: loaded.row.username,
    changes: before === 'idling' ? {} : { chat_status: [before, 'idling'] },
  });
  return getUser(ctx, userId);
}

/**
 * Boot: creates the configured initial superuser when it does not exist. Without a configured password a random
 * one is generated and printed once in the log. Idempotent when several instances start at once: one creates it.
 */
/** The initial admin created at this boot with a generated password (to be shown once). */
export interface GeneratedAdmin {
  username: string;
  password: string;
}

/**
 * Creates the configured initial superuser when it does not exist yet. Returns its credentials when the password
 * was generated (the caller shows them once); null otherwise.
 */
export async function ensureInitialAdmin(ctx: AppContext): Promise<GeneratedAdmin | null> {
  const common = ctx.config.common;
  if (!common.create_initial_admin_user) return null;
  const username = common.initial_admin_user_username;
  if (await userRepository(ctx.dbHandle.db).findByUsername(username)) return null;
  const generated = common.initial_admin_user_password === null;
  const password = common.initial_admin_user_password ?? randomBytes(12).toString('base64url');
  try {
    await createUser(ctx, {
      user: {
        username,
        password,
        nickname: 'admin',
        email: 'admin@localhost.localdomain',
        is_active: true,
        is_superuser: true,
        is_verified: true,
      },
      settings: unlimitedSettings(),
    });
  } catch (e) {
    // Another instance starting at the same time inserted it first (a unique violation, or our check saw its
    // row): the admin exists, which is all this asks for. Anything else is a real failure.
    if (await userRepository(ctx.dbHandle.db).findByUsername(username)) return null;
    throw e;
  }
  if (generated) {
    ctx.log.warn(
      `Initial admin "${username}" created with a generated password, shown once on the console; change it after logging in`,
    );
    return { username, password };
  }
  ctx.log.info(`Initial admin "${username}" created with the configured password.`);
  return null;
}
