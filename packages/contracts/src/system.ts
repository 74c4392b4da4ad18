import { z } from 'zod';
import {
  AuthConfig,
  CommonConfig,
  Config,
  OidcConfig,
  OpenaiApiConfig,
  OpenaiWebConfig,
  StatsConfig,
} from './config';
import { VALIDATION_MESSAGES } from './errors';
import { ApiModel, ChatSource, WebModel } from './model-schemas';
import { MASKED_SECRET } from './user';

/** `/api/system/info`: counts over both sources (and per source). */
export const SystemInfo = z.object({
  /** When this process started (ISO UTC). */
  startup_time: z.string(),
  total_user_count: z.number().int(),
  total_conversation_count: z.number().int(),
  valid_conversation_count: z.number().int(),
  /** The same counts per source. */
  conversations_by_source: z.record(
    ChatSource,
    z.object({ total: z.number().int(), valid: z.number().int() }),
  ),
  /**
   * Demo mode: the built-in upstream emulator answers these sources (nothing configured for them); null when every
   * source has a real upstream. The admin's chat shows a note with the demo prompts.
   */
  demo: z
    .object({
      /** The sources the emulator answers. */
      sources: z.array(ChatSource),
      /** Where it listens (the app's port + 1 unless that was taken). */
      emulator_url: z.string(),
    })
    .nullable(),
});
export type SystemInfo = z.infer<typeof SystemInfo>;

/** `/api/readyz`: one check's outcome (`not_configured` when the deployment does not use it, e.g. Redis). */
export const ReadinessCheck = z.enum(['ok', 'failed', 'not_configured']);
export type ReadinessCheck = z.infer<typeof ReadinessCheck>;

/**
 * `/api/readyz`: whether this instance should get traffic. 200 with `ready: true`, or 503 (`errors.notReady`)
 * carrying the same shape so the failed check is named.
 */
export const ReadinessStatus = z.object({
  ready: z.boolean(),
  checks: z.object({
    /** One trivial query answered. */
    database: ReadinessCheck,
    /** One PING answered within a second (only with `data.redis_url`). */
    redis: ReadinessCheck,
    /** `draining` after SIGTERM: finishing its work, taking no new traffic. */
    lifecycle: z.enum(['running', 'draining']),
  }),
});
export type ReadinessStatus = z.infer<typeof ReadinessStatus>;

/** Bucket sizes of the statistics charts (SPEC §9): 30 min, 1 h, 3 h, 6 h, 12 h, 1 day. */
export const STATS_GRANULARITIES = [1800, 3600, 10800, 21600, 43200, 86400] as const;

/** A query-string timestamp: ISO 8601 with a zone (`Z` or an offset). */
const IsoTime = z.iso.datetime({ offset: true });

export const StatsQuery = z
  .object({
    /** Bucket size, seconds; buckets are aligned to the UTC epoch. */
    granularity: z.coerce
      .number()
      .int()
      .refine((g) => (STATS_GRANULARITIES as readonly number[]).includes(g), {
        message: `granularity must be one of ${STATS_GRANULARITIES.join(', ')}`,
      })
      .default(1800),
    /** Start of the range (inclusive); default: 24 h before `end_time`. */
    start_time: IsoTime.optional(),
    /** End of the range (exclusive); default: now. */
    end_time: IsoTime.optional(),
  })
  .refine((q) => !q.start_time || !q.end_time || Date.parse(q.start_time) < Date.parse(q.end_time), {
    message: 'start_time must be before end_time',
    path: ['start_time'],
  });
export type StatsQuery = z.infer<typeof StatsQuery>;

/** One bucket of request statistics. */
export const RequestStatsBucket = z.object({
  _id: z.object({
    /** Bucket start (ISO UTC). */
    start_time: z.string(),
    /** Route template, e.g. `/api/conv/:conversation_id`. */
    route_path: z.string(),
    /** HTTP method, or WEBSOCKET for the chat socket. */
    method: z.string(),
  }),
  count: z.number().int(),
  user_ids: z.array(z.number().int()),
  avg_elapsed_ms: z.number(),
});
export type RequestStatsBucket = z.infer<typeof RequestStatsBucket>;

/** One bucket of ask statistics. */
export const AskStatsBucket = z.object({
  _id: z.object({
    start_time: z.string(),
    meta: z.object({ source: z.string(), model: z.string() }),
  }),
  count: z.number().int(),
  user_ids: z.array(z.number().int()),
  /** Seconds spent answering, summed over the bucket. */
  total_ask_time: z.number(),
  /** Seconds spent in the queue, summed over the bucket. */
  total_queueing_time: z.number(),
});
export type AskStatsBucket = z.infer<typeof AskStatsBucket>;

/** `POST /api/system/logs/server`. */
export const ServerLogQuery = z.object({
  /** Lines to return, counted from the end. */
  max_lines: z.number().int().min(1).max(5000).default(100),
  /** Skip lines containing any of these (case-sensitive). */
  exclude_keywords: z.array(z.string().min(1)).max(50).nullish(),
});
export type ServerLogQuery = z.infer<typeof ServerLogQuery>;

/** `GET /api/system/logs/completions`. */
export const CompletionLogQuery = z.object({
  start_time: IsoTime.optional(),
  end_time: IsoTime.optional(),
  max_results: z.coerce.number().int().min(1).max(5000).default(100),
});
export type CompletionLogQuery = z.infer<typeof CompletionLogQuery>;

/** One ask (completion) log entry. */
export const CompletionLog = z.object({
  id: z.number().int(),
  time: z.string(),
  source: z.string(),
  model: z.string(),
  user_id: z.number().int().nullable(),
  /** The asker's username (null when the user is gone). */
  username: z.string().nullable().optional(),
  conversation_id: z.string().nullable(),
  server_id: z.number().int().nullable(),
  /** Seconds. */
  queueing_time: z.number(),
  /** Seconds. */
  ask_time: z.number(),
  /** success | canceled | error | timeout */
  outcome: z.string(),
  charged: z.boolean(),
  error: z.string().nullable(),
});
export type CompletionLog = z.infer<typeof CompletionLog>;

/**
 * Why a sync changed nothing: the upstream listed no conversation at all while some are valid here (no
 * information, not a deletion), or too many valid conversations are missing upstream at once.
 */
export const SYNC_STOPS = ['upstream_empty', 'too_many_missing'] as const;
export const SyncStop = z.enum(SYNC_STOPS);
export type SyncStop = z.infer<typeof SyncStop>;

/** `POST /api/system/action/sync-openai-web-conv`. */
export const SyncSummary = z.object({
  /** Conversations listed by the upstream account. */
  fetched: z.number().int(),
  /** Known rows whose title or create time changed, or that were valid again. */
  updated: z.number().int(),
  /** Rows missing upstream, now marked invalid. */
  invalidated: z.number().int(),
  /** Upstream conversations we did not know, inserted unassigned. */
  inserted: z.number().int(),
  /** Rows valid before the sync. */
  valid: z.number().int(),
  /** Of those, the ones the upstream did not list: invalidated, unless the sync stopped. */
  missing: z.number().int(),
  /** Set when the sync stopped and changed nothing (then updated, invalidated and inserted are 0). */
  stopped: SyncStop.nullable(),
});
export type SyncSummary = z.infer<typeof SyncSummary>;

// --- tasks -----------------------------------------------------------------------------------------------------

export const TASK_STATUSES = ['idle', 'running', 'success', 'failed'] as const;
export const TaskStatus = z.enum(TASK_STATUSES);
export type TaskStatus = z.infer<typeof TaskStatus>;

/** A task run's outcome as a message key with parameters, which the admin page shows in the reader's language. */
export const TaskSummary = z.object({
  key: z.string(),
  params: z.record(z.string(), z.union([z.string(), z.number()])),
});
export type TaskSummary = z.infer<typeof TaskSummary>;

export const TaskRead = z.object({
  name: z.string(),
  description: z.string(),
  enabled: z.boolean(),
  interval_seconds: z.number().int(),
  last_run_time: z.string().nullable(),
  next_run_time: z.string().nullable(),
  status: TaskStatus,
  output: z.string().nullable(),
  /** The last run's outcome as a message key (null when it failed or has none: show `output`). */
  summary: TaskSummary.nullable(),
});
export type TaskRead = z.infer<typeof TaskRead>;

export const TaskNameParams = z.object({ name: z.string().min(1).max(64) });

/** `GET /api/system/task/{name}/runs`: how many of the latest runs (newest first). */
export const TaskRunsQuery = z.object({ limit: z.coerce.number().int().min(1).max(100).default(20) });
export type TaskRunsQuery = z.infer<typeof TaskRunsQuery>;

export const TaskUpdate = z
  .object({
    enabled: z.boolean().optional(),
    /** Seconds between runs (1 s … 30 days). */
    interval_seconds: z.number().int().min(1).max(2_592_000).optional(),
  })
  .refine((u) => u.enabled !== undefined || u.interval_seconds !== undefined, {
    message: 'nothing to update',
  });
export type TaskUpdate = z.infer<typeof TaskUpdate>;

/** One run of a task (also the result of "run now"). */
export const TaskRun = z.object({
  id: z.number().int(),
  name: z.string(),
  /** schedule | manual | startup */
  trigger: z.string(),
  start_time: z.string(),
  end_time: z.string(),
  status: z.enum(['success', 'failed']),
  /** Plain text (English), kept for logs; for a failed run, the error. */
  output: z.string(),
  /** The outcome as a message key (null when the run failed or was recorded before summaries). */
  summary: TaskSummary.nullable(),
});
export type TaskRun = z.infer<typeof TaskRun>;

// --- config and credentials ------------------------------------------------------------------------------------

/** Keys read once at boot from config.yaml/env: shown read-only; a change through the API is refused. */
export const BOOTSTRAP_ONLY_KEYS = ['http.', 'data.', 'auth.', 'log.', 'common.'] as const;

/** Saved keys that act only at the next start. */
export const RESTART_REQUIRED_KEYS = [
  'openai_web.sync_conversations_on_startup',
  'openai_web.browser_upload_origins',
] as const;

/** Secrets inside the config: shown masked, never stored by the API (they come from config.yaml or the environment). */
export const CONFIG_SECRET_KEYS = [
  'auth.secret_key',
  'auth.previous_secret_key',
  'auth.jwt_secret',
  'auth.user_secret',
  'auth.metrics_token',
  'auth.oidc.client_secret',
  'common.initial_admin_user_password',
] as const;

const Masked = z.literal(MASKED_SECRET);

/**
 * `PUT /api/system/config`: the full config as `GET` returned it. The secrets may come back as the mask, which
 * keeps them as they are.
 */
/**
 * A log's keeping time as saved: -1 = forever, else at least 1 second. A 0 reads like "no limit" and would delete the
 * whole log at the next cleanup, so a save refuses it (a 0 stored before still reads).
 */
const keepSeconds = <T extends z.ZodType<number>>(schema: T) =>
  schema.refine((seconds) => seconds !== 0, { message: VALIDATION_MESSAGES.keepSeconds });

export const ConfigWrite = Config.extend({
  stats: StatsConfig.extend({
    ask_stats_ttl: keepSeconds(StatsConfig.shape.ask_stats_ttl),
    request_stats_ttl: keepSeconds(StatsConfig.shape.request_stats_ttl),
    audit_log_ttl: keepSeconds(StatsConfig.shape.audit_log_ttl),
  }).prefault({}),
  auth: AuthConfig.extend({
    secret_key: z.union([Masked, AuthConfig.shape.secret_key]),
    previous_secret_key: z.union([Masked, AuthConfig.shape.previous_secret_key]),
    jwt_secret: z.union([Masked, AuthConfig.shape.jwt_secret]),
    user_secret: z.union([Masked, AuthConfig.shape.user_secret]),
    metrics_token: z.union([Masked, AuthConfig.shape.metrics_token]),
    oidc: OidcConfig.extend({
      client_secret: z.union([Masked, OidcConfig.shape.client_secret]),
    }).prefault({}),
  }).prefault({}),
  common: CommonConfig.extend({
    initial_admin_user_password: z.union([Masked, CommonConfig.shape.initial_admin_user_password]),
  }).prefault({}),
});
export type ConfigWrite = z.infer<typeof ConfigWrite>;
export type ConfigWriteInput = z.input<typeof ConfigWrite>;

/** The config as read (`GET /api/system/config`): the same shape, with the model mappings already completed. */
export const ConfigRead = ConfigWrite.extend({
  stats: StatsConfig,
  openai_web: OpenaiWebConfig.extend({ model_code_mapping: z.partialRecord(WebModel, z.string()) }),
  openai_api: OpenaiApiConfig.extend({ model_code_mapping: z.partialRecord(ApiModel, z.string()) }),
});
export type ConfigRead = z.infer<typeof ConfigRead>;

export const ConfigSaved = z.object({
  config: ConfigRead,
  /** Dotted keys that changed but apply only after a restart. */
  restart_required: z.array(z.string()),
});
export type ConfigSaved = z.infer<typeof ConfigSaved>;

/** JSON Schemas (input side) the admin page renders its forms from. */
export const ConfigSchemas = z.object({
  config: z.record(z.string(), z.unknown()),
  credentials: z.record(z.string(), z.unknown()),
  restart_required_keys: z.array(z.string()),
  /** Key prefixes set only in config.yaml or the environment (read-only in the admin form). */
  bootstrap_only_keys: z.array(z.string()),
});

/** Credentials as read: `MASKED_SECRET` when set, null when not. */
export const CredentialsRead = z.object({
  openai_web_access_token: z.literal(MASKED_SECRET).nullable(),
  openai_api_key: z.literal(MASKED_SECRET).nullable(),
});
export type CredentialsRead = z.infer<typeof CredentialsRead>;

/** `PUT /api/system/credentials`: a new value, null to clear, or the mask to keep the stored one. */
export const CredentialsWrite = z.object({
  openai_web_access_token: z.string().min(1).max(8192).nullable().optional(),
  openai_api_key: z.string().min(1).max(1024).nullable().optional(),
});
export type CredentialsWrite = z.infer<typeof CredentialsWrite>;

/** What the audit log records: administrative changes and logins. Each has a label in both languages. */
export const AUDIT_ACTIONS = [
  'auth.login',
  'auth.login_failed',
  'auth.sso_login',
  'auth.sso_login_failed',
  'user.create',
  'user.update',
  'user.delete',
  'user.settings',
  'user.reset_chat_status',
  'group.create',
  'group.update',
  'group.delete',
  'conversation.invalidate',
  'conversation.vanish',
  'conversation.assign',
  'share.create',
  'share.revoke',
  'invite.create',
  'invite.revoke',
  'invite.use',
  'server.create',
  'server.update',
  'server.delete',
  'task.run',
  'task.update',
  'config.update',
  'credentials.update',
] as const;
export const AuditAction = z.enum(AUDIT_ACTIONS);
export type AuditAction = z.infer<typeof AuditAction>;

export const AUDIT_TARGET_TYPES = [
  'user',
  'group',
  'conversation',
  'server',
  'task',
  'config',
  'credentials',
  'invite',
] as const;
export const AuditTargetType = z.enum(AUDIT_TARGET_TYPES);
export type AuditTargetType = z.infer<typeof AuditTargetType>;

export const AuditOutcome = z.enum(['success', 'failure']);
export type AuditOutcome = z.infer<typeof AuditOutcome>;

/** One changed field: its value before and after (null when absent); secret values are MASKED_SECRET. */
export const AuditChange = z.tuple([z.unknown(), z.unknown()]);

/** One audit entry (read-only: nothing in the app edits or deletes single entries). */
export const AuditEntry = z.object({
  id: z.number().int(),
  /** When (ISO UTC). */
  time: z.string(),
  /** Null for a failed login, or when the acting user has been deleted since. */
  actor_id: z.number().int().nullable(),
  /** Username of the actor at the time; for a failed login, the username tried. */
  actor_name: z.string(),
  /** The client address of the request. */
  address: z.string().nullable(),
  action: AuditAction,
  target_type: AuditTargetType,
  target_id: z.string().nullable(),
  /** A readable name of the target at the time (username, hostname, title). */
  target_label: z.string().nullable(),
  /** Changed fields by dotted name: `[before, after]`. */
  changes: z.record(z.string(), AuditChange),
  outcome: AuditOutcome,
});
export type AuditEntry = z.infer<typeof AuditEntry>;

/** Filters of the audit log; every one optional. */
export const AuditQuery = z
  .object({
    /** Actor's username (exact, case-insensitive). */
    actor: z.string().trim().min(1).max(255).optional(),
    action: AuditAction.optional(),
    target_type: AuditTargetType.optional(),
    /** The target's id, or a part of its label. */
    target: z.string().trim().min(1).max(255).optional(),
    /** Start of the range (inclusive). */
    start_time: IsoTime.optional(),
    /** End of the range (exclusive). */
    end_time: IsoTime.optional(),
    /** Entries skipped (newest first). */
    offset: z.coerce.number().int().min(0).default(0),
    /** Entries on a page. */
    limit: z.coerce.number().int().min(1).max(500).default(50),
  })
  .refine((q) => !q.start_time || !q.end_time || Date.parse(q.start_time) < Date.parse(q.end_time), {
    message: 'start_time must be before end_time',
    path: ['start_time'],
  });
export type AuditQuery = z.infer<typeof AuditQuery>;
export type AuditQueryInput = z.input<typeof AuditQuery>;

/** A page of the audit log, newest first, and how many entries match in all. */
export const AuditPage = z.object({ items: z.array(AuditEntry), total: z.number().int() });
export type AuditPage = z.infer<typeof AuditPage>;
