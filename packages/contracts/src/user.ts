import { z } from 'zod';
import { VALIDATION_MESSAGES as V } from './errors';
import { Budget, BudgetStatus } from './budget';
import { QueryBool, SortOrder } from './conversation';
import { MAX_STORED_INT, NICKNAME_MAX_CHARS, USERNAME_MAX_CHARS } from './limits';
import { ApiModel, WebModel } from './model-schemas';
import { hasInvisible, mixesScripts } from './text';
import { RowId, RowIdParam } from './ids';

/** SPEC §5: more than 6 characters, digits/letters/symbols, no spaces. */
export const PASSWORD_PATTERN = /^[\x21-\x7e]{7,128}$/;
const absent = (input: unknown) => input === undefined || input === null || input === '';
export const Password = z
  .string({ error: (issue) => (absent(issue.input) ? V.passwordRequired : V.passwordRule) })
  .min(1, { message: V.passwordRequired, abort: true })
  .regex(PASSWORD_PATTERN, { message: V.passwordRule });

/**
 * A new username (create, invite sign-up, rename): names already given keep working as they are. Whether it looks
 * like another user's name is the server's check (it needs them all).
 */
export const Username = z
  .string({ message: V.usernameRequired })
  // One way to write a name: full-width and other compatibility forms become the plain letters ("ａｄｍｉｎ" is admin).
  .normalize('NFKC')
  .trim()
  .min(1, { message: V.usernameRequired })
  .max(USERNAME_MAX_CHARS, { message: V.usernameTooLong })
  .regex(/^\S*$/, { message: 'validation.usernameNoSpaces' })
  // Control and invisible format characters (NUL, zero-width, right-to-left override) would let one name pass for
  // another in the admin console and the audit log.
  .refine((name) => !hasInvisible(name), { message: 'validation.usernameInvisible' })
  .refine((name) => !mixesScripts(name), { message: V.usernameMixedScript });
export const Nickname = z
  .string({ message: V.nicknameRequired })
  .trim()
  .min(1, { message: V.nicknameRequired })
  .max(NICKNAME_MAX_CHARS, { message: V.nicknameTooLong });
export const Email = z
  .email({ error: (issue) => (absent(issue.input) ? V.emailRequired : V.invalidEmail) })
  .max(254);
/** What an avatar may be: an http(s) URL or an inline `data:image/…` URL, never a script (`javascript:` …). */
const AVATAR_URL = /^(https?:\/\/[^\s/?#]+\S*|data:image\/[a-z0-9.+-]+[;,]\S*)$/i;
export const Avatar = z.string().max(2048).regex(AVATAR_URL, { message: V.avatarUrl }).nullable();
export const Remark = z.string().max(256).nullable();

export const ChatStatus = z.enum(['asking', 'queueing', 'idling']);
export type ChatStatus = z.infer<typeof ChatStatus>;
/** The chat status as shown: `unknown` while the shared store (Redis) does not answer. */
export const ShownChatStatus = z.enum([...ChatStatus.options, 'unknown']);
export type ShownChatStatus = z.infer<typeof ShownChatStatus>;

const TIME = /^([01]\d|2[0-3]):[0-5]\d:[0-5]\d$/;

/** A sliding window: at most `max_requests` asks in any `window_seconds`. */
export const TimeWindowRateLimit = z.object({
  window_seconds: z.number().int().min(1).max(MAX_STORED_INT),
  max_requests: z.number().int().min(0).max(MAX_STORED_INT),
});
export type TimeWindowRateLimit = z.infer<typeof TimeWindowRateLimit>;

/** A daily slot in UTC, inclusive: "HH:MM:SS". An end before the start wraps past midnight. */
export const DailyTimeSlot = z.object({
  start_time: z.string().regex(TIME, { message: V.timeFormat }),
  end_time: z.string().regex(TIME, { message: V.timeFormat }),
});
export type DailyTimeSlot = z.infer<typeof DailyTimeSlot>;

/** -1 means unlimited. */
const Count = z.number().int().min(-1).max(MAX_STORED_INT);

const baseSourceSetting = {
  allow_to_use: z.boolean(),
  /** null = forever. */
  valid_until: z.iso.datetime({ offset: true }).nullable(),
  max_conv_count: Count,
  total_ask_count: Count,
  rate_limits: z.array(TimeWindowRateLimit).max(10),
  daily_available_time_slots: z.array(DailyTimeSlot).max(24),
};

export const WebSourceSetting = z.object({
  ...baseSourceSetting,
  available_models: z.array(WebModel),
  /** Remaining asks per model; a missing model is unlimited. */
  per_model_ask_count: z.partialRecord(WebModel, Count),
  allow_uploading_attachments: z.boolean(),
  allow_uploading_multimodal_images: z.boolean(),
});
export type WebSourceSetting = z.infer<typeof WebSourceSetting>;

/** The key is write-only: reads show MASKED_SECRET when one is set; writing MASKED_SECRET keeps it. */
export const MASKED_SECRET = '********';

export const CustomOpenaiApiSettings = z.object({
  url: z.url({ protocol: /^https?$/ }).nullable(),
  key: z.string().max(512).nullable(),
});

export const ApiSourceSetting = z.object({
  ...baseSourceSetting,
  available_models: z.array(ApiModel),
  per_model_ask_count: z.partialRecord(ApiModel, Count),
  allow_custom_openai_api: z.boolean(),
  custom_openai_api_settings: CustomOpenaiApiSettings,
});
export type ApiSourceSetting = z.infer<typeof ApiSourceSetting>;

export const UserSetting = z.object({
  id: z.number().int(),
  user_id: z.number().int(),
  /** Total spend budget in the configured currency (credits); -1 = unlimited. */
  credits: Budget,
  /** Spend budget per UTC day; -1 = none. */
  daily_budget: Budget,
  /** Spend budget per UTC calendar month; -1 = none. */
  monthly_budget: Budget,
  /** What was spent and what is left of each budget now (read only; ignored on write). */
  budget: BudgetStatus.optional(),
  openai_web_chat_status: ShownChatStatus,
  openai_web: WebSourceSetting,
  openai_api: ApiSourceSetting,
});
export type UserSetting = z.infer<typeof UserSetting>;

/** Admin write of a user's settings (`id`/`user_id` are ignored; chat status may be reset to idling). */
/** A source's asks left as a form loaded them (see `counts_seen`). */
const CountsSeen = z.object({ total_ask_count: Count, per_model_ask_count: z.record(z.string(), Count) });

export const UserSettingUpdate = z.object({
  /** Total spend budget in currency units; -1 = unlimited. */
  credits: Budget,
  /** Per-day and per-month spend budgets; -1 = none; absent = unchanged. */
  daily_budget: Budget.optional(),
  monthly_budget: Budget.optional(),
  /** Only `idling` does something (frees the user); the others, as read back, are ignored. */
  openai_web_chat_status: ShownChatStatus.optional(),
  openai_web: WebSourceSetting,
  openai_api: ApiSourceSetting,
  /**
   * The asks left as the form showed them when it was loaded: a count still equal to what was seen is left as it is
   * now (the user may have asked meanwhile, and a save of a budget must not give those asks back); only a count the
   * admin changed is written. Absent: every count is written as sent.
   */
  counts_seen: z.object({ openai_web: CountsSeen, openai_api: CountsSeen }).optional(),
});
export type UserSettingUpdate = z.infer<typeof UserSettingUpdate>;

/** Defaults a new user gets (config section `user_defaults`). */
export const NewUserDefaults = UserSettingUpdate.omit({ openai_web_chat_status: true, counts_seen: true });
export type NewUserDefaults = z.infer<typeof NewUserDefaults>;

export const UserRead = z.object({
  id: z.number().int(),
  email: z.string(),
  is_active: z.boolean(),
  is_superuser: z.boolean(),
  is_verified: z.boolean(),
  username: z.string(),
  nickname: z.string(),
  last_active_time: z.string().nullable(),
  create_time: z.string(),
  avatar: z.string().nullable(),
  setting: UserSetting,
});
export type UserRead = z.infer<typeof UserRead>;

export const UserReadAdmin = UserRead.extend({
  remark: z.string().nullable(),
  /** An imported account whose old password cannot be checked: it cannot log in until an admin sets a password. */
  password_reset_required: z.boolean(),
  /** The user's group (its template was applied to the settings), or null. */
  group_id: z.number().int().nullable(),
});
export type UserReadAdmin = z.infer<typeof UserReadAdmin>;

export const UserCreate = z.object({
  email: Email,
  password: Password,
  username: Username,
  nickname: Nickname,
  is_active: z.boolean().default(true),
  is_superuser: z.boolean().default(false),
  is_verified: z.boolean().default(false),
  avatar: Avatar.optional(),
  remark: Remark.optional(),
});
export type UserCreate = z.infer<typeof UserCreate>;

/** Self-edit allow-list: nickname, email, avatar, password — never flags (unknown keys are dropped). */
export const UserUpdateSelf = z.object({
  password: Password.optional(),
  email: Email.optional(),
  nickname: Nickname.optional(),
  avatar: Avatar.optional(),
});
export type UserUpdateSelf = z.infer<typeof UserUpdateSelf>;

export const UserUpdateAdmin = UserUpdateSelf.extend({
  is_active: z.boolean().optional(),
  is_superuser: z.boolean().optional(),
  is_verified: z.boolean().optional(),
  username: Username.optional(),
  remark: Remark.optional(),
  /** Joining a group applies its template to the user's settings; null leaves it (own settings come back). */
  group_id: RowId.nullable().optional(),
});
export type UserUpdateAdmin = z.infer<typeof UserUpdateAdmin>;

export const UserIdParams = z.object({ user_id: RowIdParam });

/** Filters of the admin user list (`GET /api/user`, `GET /api/user/refs`). */
export const UserFilterQuery = z.object({
  /** Case-insensitive part of the username, nickname, email or remark, or the exact id. */
  q: z.string().trim().min(1).max(64).optional(),
  /** A group id, or `none` for users in no group. */
  group: z.union([z.literal('none'), RowIdParam]).optional(),
  active: QueryBool.optional(),
  superuser: QueryBool.optional(),
});
export type UserFilterQuery = z.infer<typeof UserFilterQuery>;

/** `GET /api/user`: one page of users; the total before paging is in the `x-total-count` header. */
export const UserListQuery = UserFilterQuery.extend({
  /** Sort column; ties by id. `group` sorts by the group's name. */
  sort: z.enum(['id', 'username', 'last_active', 'group']).default('id'),
  order: SortOrder.default('asc'),
  offset: z.coerce.number().int().min(0).default(0),
  /** Page size (default 100). */
  limit: z.coerce.number().int().min(1).max(1000).default(100),
});
export type UserListQuery = z.infer<typeof UserListQuery>;

/** A user named: what pickers and "select every match" need. */
export const UserRef = z.object({ id: z.number().int(), username: z.string(), nickname: z.string() });
export type UserRef = z.infer<typeof UserRef>;
/** At most this many refs in one answer (`GET /api/user/refs`). */
export const MAX_USER_REFS = 20_000;

/** `GET /api/user/refs`: the users that match, by id. */
export const UserRefsQuery = UserFilterQuery.extend({
  limit: z.coerce.number().int().min(1).max(MAX_USER_REFS).default(MAX_USER_REFS),
});
export type UserRefsQuery = z.infer<typeof UserRefsQuery>;

/**
 * A group's settings template: the per-source settings a member gets (the same shapes as a user's), except the
 * own API endpoint and key, which stay each user's.
 */
/** Spend budgets a group gives its members (currency units; -1 = unlimited / none). */
export const GroupBudgets = z.object({
  credits: Budget,
  daily_budget: Budget,
  monthly_budget: Budget,
});
export type GroupBudgets = z.infer<typeof GroupBudgets>;

export const GroupTemplate = z.object({
  openai_web: WebSourceSetting,
  openai_api: ApiSourceSetting.omit({ custom_openai_api_settings: true }),
  /** The members' spend budgets; null or absent: each member keeps their own. */
  budgets: GroupBudgets.nullable().optional(),
});
export type GroupTemplate = z.infer<typeof GroupTemplate>;

export const GroupName = z
  .string({ message: V.groupNameRequired })
  .trim()
  .min(1, { message: V.groupNameRequired })
  .max(64);

/** `POST /api/system/groups`, `PUT /api/system/groups/{group_id}`. */
export const UserGroupWrite = GroupTemplate.extend({ name: GroupName });
export type UserGroupWrite = z.infer<typeof UserGroupWrite>;

export const UserGroupRead = UserGroupWrite.extend({
  id: z.number().int(),
  /** Users in the group. */
  member_count: z.number().int(),
  create_time: z.string(),
  update_time: z.string(),
});
export type UserGroupRead = z.infer<typeof UserGroupRead>;

export const GroupIdParams = z.object({ group_id: RowIdParam });
