import type { Generated, Insertable, Selectable, Updateable } from 'kysely';

/**
 * One schema for SQLite and PostgreSQL. Conventions that keep both dialects identical:
 * timestamps are ISO-8601 UTC text (sortable, indexable), booleans are 0/1 integers, JSON is text.
 */
/**
 * Stored in place of a password hash for an account whose password cannot be checked (an imported hash in a format
 * we do not verify): no password matches it, login tells the user to ask an administrator, and the admin's user list
 * shows it. Setting a password replaces it.
 */
export const PASSWORD_RESET_REQUIRED = '!password-reset-required';
/** The stored "hash" of an account made by single sign-on: no password matches it (an admin may set one later). */
export const NO_LOCAL_PASSWORD = '!no-local-password';

export interface UsersTable {
  id: Generated<number>;
  username: string;
  nickname: string;
  email: string;
  hashed_password: string;
  avatar: string | null;
  remark: string | null;
  is_active: number;
  is_superuser: number;
  is_verified: number;
  last_active_time: string | null;
  create_time: string;
  update_time: string;
  /** The user's group (user_groups.id), or null; deleting the group sets it to null. */
  group_id: number | null;
  /**
   * 1 when the username or email is the person's own word (made through an invite link, email changed on their own
   * profile), not given by an admin or the identity provider: single sign-on never links a first sign-in to it.
   */
  self_claimed: Generated<number>;
}

/** A named settings template; `openai_web` / `openai_api` are JSON of `GroupTemplate`'s sources, counts included. */
export interface UserGroupsTable {
  id: Generated<number>;
  name: string;
  openai_web: string;
  openai_api: string;
  /** JSON of the template's `GroupBudgets` (currency units); null: members keep their own budgets. */
  budgets: string | null;
  create_time: string;
  update_time: string;
}

export interface UserSettingsTable {
  id: Generated<number>;
  user_id: number;
  /**
   * Spend budgets in micros (millionths of the billing currency; PostgreSQL bigint: read through Number()). Total:
   * `budget_total` (-1 unlimited) and all ever spent against it; daily and monthly: the budget (-1 none) and what
   * was spent in the UTC period `day_key` (YYYY-MM-DD) / `month_key` (YYYY-MM) — another key means nothing yet.
   */
  budget_total: number;
  spent_total: Generated<number>;
  budget_daily: Generated<number>;
  spent_daily: Generated<number>;
  day_key: Generated<string>;
  budget_monthly: Generated<number>;
  spent_monthly: Generated<number>;
  month_key: Generated<string>;
  /** JSON of the web source settings, without the counters (those live in quota_counters). */
  openai_web: string;
  /** JSON of the API source settings, without the counters; the custom key encrypted. */
  openai_api: string;
  update_time: string;
  /**
   * A group member's own source settings from before joining (JSON `{openai_web, openai_api}` without counters and
   * without the own API endpoint), restored when they leave; null outside a group.
   */
  own_settings: string | null;
}

export interface QuotaCountersTable {
  user_id: number;
  source: string;
  /** A model name, or '*' for the source's total count. */
  model: string;
  /** Remaining asks; -1 = unlimited. */
  remaining: number;
}

export interface SessionsTable {
  /** HMAC digest of the cookie token (the token itself is never stored). */
  id: string;
  user_id: number;
  created_at: string;
  expires_at: string;
  last_seen_at: string;
  user_agent: string | null;
  ip: string | null;
}

export interface SettingsTable {
  key: string;
  value: string;
  update_time: string;
}

export interface ServersTable {
  id: Generated<number>;
  source: string;
  hostname: string;
  ip_address: string;
  port: number;
  /** Path prefix of the API on that host, e.g. `/backend-api/` or `/v1/`. */
  base_path: string;
  use_tls: number;
  /** online | offline | disabled */
  status: string;
  weight: number;
  max_concurrency: number;
  last_check_time: string | null;
  last_error: string | null;
  create_time: string;
}

export interface ConversationsTable {
  id: Generated<number>;
  conversation_id: string;
  source: string;
  title: string | null;
  user_id: number | null;
  is_valid: number;
  is_public: number;
  current_model: string | null;
  current_node: string | null;
  /** The upstream server the conversation lives on (web conversations are sticky). */
  server_id: number | null;
  /** JSON list of plugin ids. */
  plugin_ids: string | null;
  create_time: string;
  update_time: string;
  /** When the owner pinned it (UTC ISO); null when not pinned. */
  pinned_at: string | null;
}

export interface MessagesTable {
  id: string;
  conversation_id: string;
  parent: string | null;
  role: string;
  author_name: string | null;
  model: string | null;
  /** JSON content. */
  content: string | null;
  /** JSON metadata. */
  metadata: string | null;
  /** Plain text, for search and API context. */
  text: string;
  create_time: string;
  /** Order of arrival within the conversation (ties on create_time). */
  seq: number;
  /** 1 while the answer is still arriving (not in SQLite's search index yet), else 0. */
  streaming: Generated<number>;
}

/**
 * SQLite only: the FTS5 (trigram) index of user and assistant message text, rowid = the message's rowid, kept by
 * triggers on `messages` (PostgreSQL searches `messages.text` through a pg_trgm index instead).
 */
export interface MessageSearchTable {
  rowid: number;
  text: string;
  message_id: string;
  conversation_id: string;
}

/**
 * The upstream files a stored message points at (image parts and code-interpreter images of assistant and tool
 * messages), written with the message: the only way a conversation grants access to a file it did not upload.
 */
export interface MessageFilesTable {
  message_id: string;
  /** The upstream (openai_web) file id. */
  file_id: string;
}

export interface AskLogsTable {
  id: Generated<number>;
  time: string;
  source: string;
  model: string;
  user_id: number | null;
  conversation_id: string | null;
  server_id: number | null;
  queueing_time: number;
  ask_time: number;
  /** success | canceled | error | timeout | interrupted */
  outcome: string;
  charged: number;
  error: string | null;
  /** Tokens in and out (null: asked before tokens were recorded, or never reached an upstream). */
  input_tokens: number | null;
  output_tokens: number | null;
  /** 1 when counted here with a tokenizer because the upstream reported none; 0 the upstream's own count. */
  tokens_estimated: number | null;
  /** What the ask cost in micros (null: logged before budgets; bigint on PostgreSQL). */
  cost: number | null;
}

/** An ask in flight that was charged (settled by another instance if its own dies). */
export interface RunningAsksTable {
  ask_id: string;
  /** The instance that runs it. */
  instance_id: string;
  user_id: number;
  source: string;
  model: string;
  /** Where the answer goes: a follow-up's conversation from the start, a new one from the write that stores it. */
  conversation_id: string | null;
  server_id: number | null;
  /** Micros reserved against the budgets (given back by a refund; bigint on PostgreSQL). */
  reserved: number;
  /** The UTC day (YYYY-MM-DD) of the reservation; null when nothing was reserved. */
  reserved_day: string | null;
  /** The rate_events row of the reservation (deleted by a refund). */
  rate_event_id: number | null;
  /** The shared_cap_events row of the reservation, if the ask counts toward a shared cap (deleted by a refund). */
  cap_event_id: number | null;
  started_at: string;
  queueing_time: number;
  /** When the upstream was asked; null while queueing. */
  ask_started_at: string | null;
  /** Renewed by the instance every couple of seconds; old = the instance is gone. */
  heartbeat_at: string;
}

/**
 * Ask statistics per source/model and bucket of each statistics granularity (`span`, seconds: 1800 … 86400), kept
 * as ask_logs rows arrive (and trimmed with them): `bucket` is the bucket start in epoch seconds (UTC);
 * `user_ids_json` the distinct users as a sorted JSON array, `[3,17]` (`[]` for none). PostgreSQL returns `bigint`
 * as a string: read `bucket` through Number().
 */
export interface AskStatsRollupsTable {
  span: number;
  bucket: number;
  source: string;
  model: string;
  count: number;
  total_ask_time: number;
  total_queueing_time: number;
  user_ids_json: string;
}

export interface RateEventsTable {
  id: Generated<number>;
  user_id: number;
  source: string;
  time: string;
}

/** One row per ask admitted under a cap shared by every user; removed when the ask is refunded. */
export interface SharedCapEventsTable {
  id: Generated<number>;
  /** `<source>:<model prefix>`, e.g. `openai_web:gpt_4`. */
  cap: string;
  time: string;
}

/** The append-only audit log: administrative changes and logins (purged only after `stats.audit_log_ttl`). */
export interface AuditLogsTable {
  id: Generated<number>;
  time: string;
  /** Null for a failed login (nobody is logged in) or when the acting user is gone. */
  actor_id: number | null;
  /** Username of the actor at the time (for a failed login: the username tried). */
  actor_name: string;
  /** Client address of the request. */
  address: string | null;
  /** e.g. `user.update`, `auth.login_failed` (AUDIT_ACTIONS in the contracts). */
  action: string;
  /** user | conversation | server | task | config | credentials | session */
  target_type: string;
  target_id: string | null;
  /** A readable name of the target (username, hostname, title) at the time. */
  target_label: string | null;
  /** JSON `{field: [before, after]}`; secret values replaced by the mask. */
  changes: string;
  /** success | failure */
  outcome: string;
}

export interface FilesTable {
  /** uuid. */
  id: string;
  /** The client's file name (sanitised); only ever shown, never used as a path. */
  original_filename: string;
  /** Bytes (PostgreSQL bigint: read it through Number()). */
  size: number;
  content_type: string | null;
  /**
   * Generated name in the uploads folder (`data.uploads_dir`, default `<data_dir>/uploads/`); null when the bytes went
   * straight to the upstream.
   */
  storage_name: string | null;
  uploader_id: number;
  upload_time: string;
  /** Images: read from the bytes for local files, as the browser reported for direct uploads. */
  width: number | null;
  height: number | null;
  /** my_files | multimodal | ace_upload */
  use_case: string | null;
  openai_web_file_id: string | null;
  /** Signed blob URL while a browser upload is pending; cleared once it is complete. */
  openai_web_upload_url: string | null;
  openai_web_download_url: string | null;
}

/** One row per /api request (route template, not the URL), purged after `stats.request_stats_ttl`. */
export interface RequestLogsTable {
  id: Generated<number>;
  time: string;
  route_path: string;
  /** HTTP method, or WEBSOCKET for the chat socket. */
  method: string;
  user_id: number | null;
  elapsed_ms: number;
  /** Envelope code of a JSON response, else the HTTP status; the close code for the chat socket. */
  status: number;
}

/** Request statistics per route/method and bucket of each granularity, kept like {@link AskStatsRollupsTable}. */
export interface RequestStatsRollupsTable {
  span: number;
  bucket: number;
  route_path: string;
  method: string;
  count: number;
  total_elapsed_ms: number;
  user_ids_json: string;
}

/** A background task's schedule and last outcome (shared by every instance). */
export interface TasksTable {
  name: string;
  enabled: number;
  interval_seconds: number;
  last_run_time: string | null;
  next_run_time: string | null;
  /** idle | running | success | failed */
  last_status: string;
  last_output: string | null;
  /** The last run's outcome as `{key, params}` JSON (the admin page translates it); null when it has none. */
  last_summary: string | null;
  /** When the run in progress started (a stale one can be taken over). */
  run_started_at: string | null;
  update_time: string;
}

export interface TaskRunsTable {
  id: Generated<number>;
  task_name: string;
  /** schedule | manual | startup */
  trigger: string;
  start_time: string;
  end_time: string;
  /** success | failed */
  status: string;
  output: string;
  /** The outcome as `{key, params}` JSON; null for a failed run or one recorded before summaries. */
  summary: string | null;
}

/** Read-only links to a snapshot of a conversation (`/share/{token}`). */
export interface SharesTable {
  id: Generated<number>;
  /** SHA-256 (hex) of the link's token; the token itself is never stored. */
  token_hash: string;
  conversation_id: string;
  /** Who made the link (the conversation's owner then). */
  user_id: number;
  title: string | null;
  /** JSON of the shared view (contracts' SharedConversation without `shared_at`). */
  snapshot: string;
  created_at: string;
  revoked_at: string | null;
}

/** Who a user is at an OpenID Connect provider: (issuer, subject) is unique and never reused by the provider. */
export interface UserIdentitiesTable {
  id: Generated<number>;
  issuer: string;
  subject: string;
  user_id: number;
  /** The email the provider gave at the last sign-in (for the admin's eyes; matching uses the subject). */
  email: string | null;
  created_at: string;
  last_login_at: string;
}

/** An invite link: lets people create their own account until it expires, is used up or revoked. */
export interface InvitesTable {
  id: Generated<number>;
  /** SHA-256 (hex) of the link's token; the token itself is never stored. */
  token_hash: string;
  expires_at: string;
  /** null = unlimited. */
  max_uses: number | null;
  uses: Generated<number>;
  group_id: number | null;
  created_by: number | null;
  created_at: string;
  revoked_at: string | null;
}

export interface Database {
  servers: ServersTable;
  conversations: ConversationsTable;
  messages: MessagesTable;
  message_files: MessageFilesTable;
  message_search: MessageSearchTable;
  ask_logs: AskLogsTable;
  ask_stats_rollups: AskStatsRollupsTable;
  rate_events: RateEventsTable;
  shared_cap_events: SharedCapEventsTable;
  audit_logs: AuditLogsTable;
  running_asks: RunningAsksTable;
  users: UsersTable;
  user_groups: UserGroupsTable;
  user_settings: UserSettingsTable;
  quota_counters: QuotaCountersTable;
  sessions: SessionsTable;
  settings: SettingsTable;
  request_logs: RequestLogsTable;
  request_stats_rollups: RequestStatsRollupsTable;
  tasks: TasksTable;
  task_runs: TaskRunsTable;
  files: FilesTable;
  shares: SharesTable;
  user_identities: UserIdentitiesTable;
  invites: InvitesTable;
}

export type RunningAskRow = Selectable<RunningAsksTable>;
export type UserRow = Selectable<UsersTable>;
export type NewUserRow = Insertable<UsersTable>;
export type UserRowUpdate = Updateable<UsersTable>;
export type UserSettingsRow = Selectable<UserSettingsTable>;
export type UserGroupRow = Selectable<UserGroupsTable>;
export type SessionRow = Selectable<SessionsTable>;
export type ServerRow = Selectable<ServersTable>;
export type ConversationRow = Selectable<ConversationsTable>;
export type MessageRow = Selectable<MessagesTable>;
export type AskLogRow = Selectable<AskLogsTable>;
export type NewAskLogRow = Insertable<AskLogsTable>;
export type NewRequestLogRow = Insertable<RequestLogsTable>;
export type FileRow = Selectable<FilesTable>;
export type ShareRow = Selectable<SharesTable>;
export type UserIdentityRow = Selectable<UserIdentitiesTable>;
export type InviteRow = Selectable<InvitesTable>;
export type TaskRow = Selectable<TasksTable>;
export type TaskRunRow = Selectable<TaskRunsTable>;

export type AuditLogRow = Selectable<AuditLogsTable>;
export type AuditLogInsert = Insertable<AuditLogsTable>;
