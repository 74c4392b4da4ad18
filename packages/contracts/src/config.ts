import { z } from 'zod';
import { ApiModel, WebModel } from './model-schemas';
import { API_MODELS, DEFAULT_API_MODEL_CODES, DEFAULT_WEB_MODEL_CODES, WEB_MODELS } from './models';
import { Budget, DEFAULT_MODEL_PRICES, ModelPrice } from './budget';
import { ApiSourceSetting, Password, WebSourceSetting } from './user';

/**
 * The server configuration: defaults ← `<data_dir>/config.yaml` ← environment (CC_*). Every key carries its
 * default here; bounds follow SPEC §5. The admin config page renders its form from this schema.
 */
const Seconds = z.number().int().min(1);
const OptionalUrl = z.url({ protocol: /^https?$/ }).nullable();

export const FILE_UPLOAD_STRATEGIES = [
  'server_upload_only',
  'browser_upload_only',
  'browser_upload_when_file_size_exceed',
] as const;
export const FileUploadStrategy = z.enum(FILE_UPLOAD_STRATEGIES);

export const OpenaiWebConfig = z.object({
  /** Offer the web-account source at all. */
  enabled: z.boolean().default(true),
  /** The account has ChatGPT Plus (gates the plugin store). */
  is_plus_account: z.boolean().default(true),
  /** Base of the ChatGPT `backend-api`; null with no credentials = built-in demo upstream. */
  chatgpt_base_url: OptionalUrl.default(null),
  /** HTTP(S) proxy for upstream calls. */
  proxy: OptionalUrl.default(null),
  /** Connect/write timeout of upstream calls, seconds. */
  common_timeout: Seconds.default(20),
  /** Longest gap between streamed bytes of an answer, seconds. */
  ask_timeout: Seconds.default(600),
  /** Sync conversations from the account at startup. */
  sync_conversations_on_startup: z.boolean().default(true),
  /** Sync conversations on a schedule. */
  sync_conversations_schedule: z.boolean().default(false),
  /** Hours between scheduled syncs. */
  sync_conversations_schedule_interval_hours: Seconds.default(12),
  /** Models users may be given on this source. */
  enabled_models: z
    .array(WebModel)
    .default(['gpt_3_5', 'gpt_4', 'gpt_4_code_interpreter', 'gpt_4_plugins', 'gpt_4_browsing']),
  /** Product model → upstream model code; missing keys fall back to the defaults. */
  model_code_mapping: z
    .partialRecord(WebModel, z.string().min(1))
    .default({ ...DEFAULT_WEB_MODEL_CODES })
    .transform((m) => ({ ...DEFAULT_WEB_MODEL_CODES, ...m })),
  /** Where file bytes go first. */
  file_upload_strategy: FileUploadStrategy.default('browser_upload_only'),
  /**
   * The upstream's blob hosts: where browsers may PUT file bytes (the page's CSP connect-src, read at start) and,
   * besides the upstream's own host, the only hosts the server sends file bytes to or downloads files from
   * (`https://*.x` = subdomains).
   */
  browser_upload_origins: z
    .array(z.string().min(1))
    .default(['https://files.oaiusercontent.com', 'https://*.blob.core.windows.net']),
  /** Global switch for file attachments. */
  enable_uploading_attachments: z.boolean().default(true),
  /** Global switch for image parts. */
  enable_uploading_multimodal_images: z.boolean().default(true),
  /** Answers streamed at once per upstream server of this source (one account = 1). */
  max_completion_concurrency: z.number().int().min(1).max(64).default(1),
  /** Longest wait in the queue before an ask gives up, seconds. */
  queue_timeout: Seconds.default(600),
  /** Shared GPT-4 cap of the web account: asks per 3 hours for all users together (-1 = no cap). */
  gpt4_cap_per_3_hours: z.number().int().min(-1).default(50),
});

export const OpenaiApiConfig = z.object({
  /** Offer the API-key source at all. */
  enabled: z.boolean().default(true),
  /** Base of the OpenAI-compatible API; null with no key = built-in demo upstream. */
  openai_base_url: OptionalUrl.default(null),
  /** HTTP(S) proxy for upstream calls. */
  proxy: OptionalUrl.default(null),
  /** Connect timeout, seconds. */
  connect_timeout: Seconds.default(10),
  /** Longest gap between streamed bytes, seconds. */
  read_timeout: Seconds.default(20),
  /** Models users may be given on this source. */
  enabled_models: z.array(ApiModel).default([...API_MODELS]),
  /** Product model → upstream model code. */
  model_code_mapping: z
    .partialRecord(ApiModel, z.string().min(1))
    .default({ ...DEFAULT_API_MODEL_CODES })
    .transform((m) => ({ ...DEFAULT_API_MODEL_CODES, ...m })),
  /** Answers streamed at once per upstream server of this source. */
  max_completion_concurrency: z.number().int().min(1).max(4096).default(8),
  /**
   * Users' own API addresses may reach loopback, link-local and private networks (false: public addresses only,
   * so that no address a user types turns the server into a probe of its own network).
   */
  custom_api_private_networks: z.boolean().default(false),
  /** Longest wait in the queue before an ask gives up, seconds. */
  queue_timeout: Seconds.default(600),
});

export const CommonConfig = z.object({
  /** Log every SQL statement (debug level). */
  print_sql: z.boolean().default(false),
  /** Create the initial superuser at boot when it does not exist. */
  create_initial_admin_user: z.boolean().default(true),
  /** Username of the initial superuser. */
  initial_admin_user_username: z.string().min(1).max(32).default('admin'),
  /** Its password; null = generate one and print it once in the log. */
  initial_admin_user_password: Password.nullable().default(null),
});

/** A trusted proxy: an address, a network, or one of the named ranges Fastify (proxy-addr) knows. */
const TrustedProxy = z.union([
  z.ipv4(),
  z.ipv6(),
  z.cidrv4(),
  z.cidrv6(),
  z.enum(['loopback', 'linklocal', 'uniquelocal']),
]);

/**
 * Never `true` (any client could choose its own address and escape login throttling), nor a hop count (Fastify
 * ignores one: it cannot tell the proxy from a client that reaches the server directly).
 */
export const TrustProxy = z.union(
  [
    z.literal(false),
    z
      .array(TrustedProxy, {
        error:
          'expected one or more IP addresses, CIDR networks (10.0.0.0/8) or loopback, linklocal, uniquelocal',
      })
      .min(1),
  ],
  {
    error: (issue) =>
      issue.input === true
        ? 'true would trust every client; list the proxies instead: addresses and networks such as ["10.0.0.2", "172.16.0.0/12"]'
        : typeof issue.input === 'number'
          ? 'a hop count cannot tell a proxy from a client that connects directly; list the proxies: addresses and networks such as ["10.0.0.2", "172.16.0.0/12"]'
          : 'expected false or a list of proxy addresses and networks such as ["10.0.0.2", "172.16.0.0/12"]',
  },
);

export const HttpConfig = z.object({
  /** Address to listen on. */
  host: z.string().min(1).default('127.0.0.1'),
  /** Port to listen on. */
  port: z.number().int().min(1).max(65535).default(8000),
  /**
   * Other origins than the page's own allowed for state-changing requests and the chat websocket (with
   * NODE_ENV=development also the dev servers: localhost and 127.0.0.1 on ports 8000 and 5173).
   */
  cors_allow_origins: z.array(z.string().min(1)).default([]),
  /**
   * Behind a reverse proxy: who may set X-Forwarded-For/-Proto (client address for throttling, Secure cookie on
   * HTTPS). false = nobody; or a list of proxy addresses, CIDR networks, loopback/linklocal/uniquelocal.
   */
  trust_proxy: TrustProxy.default(false),
  /**
   * On SIGTERM, running answers may finish for up to this long, seconds; the rest are then kept as cut-off
   * answers. New asks go to the other instances meanwhile (readiness is 503).
   */
  shutdown_drain_seconds: z.number().int().min(0).default(30),
});

/** A URL's scheme and `//` (a plain path or `sqlite:file.db` has none). */
const URL_SCHEME = /^[a-z][a-z0-9+.-]*:\/\//i;

export const DataConfig = z.object({
  /** Folder for the SQLite file, uploads (unless `uploads_dir` says otherwise) and logs. */
  data_dir: z.string().min(1).default('./data'),
  /**
   * Folder of uploaded files; null = `<data_dir>/uploads`. Several instances point it at one shared folder (a
   * network file system) so a file uploaded through one downloads through any other.
   */
  uploads_dir: z.string().min(1).nullable().default(null),
  /**
   * null = SQLite file `<data_dir>/database.db`; or `postgres://…`; or a SQLite file's path (`sqlite:<path>`, a plain
   * path, `:memory:`). Any other `scheme://` is refused (a mistyped URL once ran on a new, empty SQLite file named
   * after it).
   */
  database_url: z
    .string()
    .refine((url) => !URL_SCHEME.test(url) || /^postgres(ql)?:\/\//.test(url) || url.startsWith('sqlite:'), {
      message: 'use postgres://user@host/database for PostgreSQL, or leave it empty for SQLite',
    })
    .nullable()
    .default(null),
  /** Redis for running several instances (`redis://…`, `rediss://…` with TLS); null = in-process coordination. */
  redis_url: z
    .string()
    .regex(/^rediss?:\/\/\S+$/, {
      message: 'use redis://host:6379 (or rediss:// for TLS), or leave it empty',
    })
    .nullable()
    .default(null),
  /** Prefix of every Redis key (lets several deployments share one Redis). */
  redis_prefix: z.string().min(1).max(64).default('cc:'),
  /** Apply pending migrations at boot (otherwise stop and ask for `npm run db:migrate`). */
  run_migration: z.boolean().default(false),
  /** Largest accepted upload, bytes. */
  max_file_upload_size: z.number().int().min(0).default(104857600),
});

export const OIDC_NEW_USERS = ['create', 'refuse'] as const;

/**
 * Single sign-on with the team's OpenID Connect provider (authorization code flow with PKCE). The local
 * password login always keeps working beside it.
 */
export const OidcConfig = z.object({
  /** Offer "sign in with …" on the login page. */
  enabled: z.boolean().default(false),
  /** The provider's issuer URL (its discovery document is `<issuer>/.well-known/openid-configuration`). */
  issuer: OptionalUrl.default(null),
  /** The client id registered at the provider for this server. */
  client_id: z.string().min(1).nullable().default(null),
  /** The client's secret; null = a public client (PKCE only). */
  client_secret: z.string().min(1).nullable().default(null),
  /** Scopes asked for; `openid` is always sent. */
  scopes: z.array(z.string().min(1)).default(['openid', 'email', 'profile']),
  /** Words on the login button ("Sign in with …"); null = the provider's host name. */
  button_label: z.string().min(1).max(64).nullable().default(null),
  /**
   * A first sign-in of someone unknown: `create` makes the account with the new-user defaults (and the group
   * below); `refuse` lets in only accounts an admin made (same email or username) and people with an invite link.
   */
  new_users: z.enum(OIDC_NEW_USERS).default('refuse'),
  /** Name (or id) of the group new accounts from sign-in join; null = none. */
  default_group: z.string().min(1).max(64).nullable().default(null),
});
export type OidcConfig = z.infer<typeof OidcConfig>;

export const AuthConfig = z.object({
  /**
   * Master key: the session and credential keys are derived from it (HKDF). null = keys generated once and kept
   * in the database, which every instance on that database shares.
   */
  secret_key: z.string().min(16).nullable().default(null),
  /**
   * The master key being replaced (rotation): still accepted to read credentials and sessions made with it, while
   * the credentials are sealed again with `secret_key` at start. Remove it once every instance runs the new key.
   */
  previous_secret_key: z.string().min(16).nullable().default(null),
  /** Key that signs session tokens (overrides the one from `secret_key` or the database); null = not set. */
  jwt_secret: z.string().min(16).nullable().default(null),
  /** Server-side session lifetime, seconds. */
  jwt_lifetime_seconds: Seconds.default(259200),
  /** Max-Age of the session cookie, seconds. */
  cookie_max_age: Seconds.default(259200),
  /** Key that encrypts stored credentials (overrides the one from `secret_key` or the database); null = not set. */
  user_secret: z.string().min(16).nullable().default(null),
  /** Failed logins per account before throttling (one address may fail 4 times as often across accounts). */
  login_max_failures: z.number().int().min(1).default(5),
  /** Window of that count, seconds. */
  login_failure_window_seconds: Seconds.default(900),
  /** Bearer token that may read /metrics (besides a superuser session); null = superuser sessions only. */
  metrics_token: z.string().min(16).nullable().default(null),
  /** Single sign-on (OpenID Connect); off by default. */
  oidc: OidcConfig.prefault({}),
});

export const StatsConfig = z.object({
  /** Keep ask logs this long, seconds (-1 = forever). */
  ask_stats_ttl: z.number().int().min(-1).default(7776000),
  /** Keep request logs this long, seconds (-1 = forever). */
  request_stats_ttl: z.number().int().min(-1).default(2592000),
  /** Keep audit log entries this long, seconds (-1 = forever); default one year. */
  audit_log_ttl: z.number().int().min(-1).default(31536000),
  /** Route paths containing any of these are not logged. */
  request_stats_filter_keywords: z.array(z.string()).default(['/status']),
});

export const LogConfig = z.object({
  /** Console level. */
  console_log_level: z.enum(['INFO', 'DEBUG', 'WARNING']).default('INFO'),
  /** Rotate the log file at this size, bytes. */
  file_max_bytes: z
    .number()
    .int()
    .min(1024)
    .default(10 * 1024 * 1024),
  /** Rotated files kept. */
  file_backup_count: z.number().int().min(0).default(5),
});

/** Shipped defaults for a new user (documented in the README). */
export const DEFAULT_NEW_USER_WEB: WebSourceSetting = {
  allow_to_use: true,
  valid_until: null,
  max_conv_count: 10,
  total_ask_count: 100,
  rate_limits: [{ window_seconds: 60, max_requests: 5 }],
  daily_available_time_slots: [],
  available_models: ['gpt_3_5', 'gpt_4', 'gpt_4_code_interpreter', 'gpt_4_plugins', 'gpt_4_browsing'],
  per_model_ask_count: { gpt_4: 20, gpt_4_code_interpreter: 20, gpt_4_plugins: 20, gpt_4_browsing: 20 },
  allow_uploading_attachments: true,
  allow_uploading_multimodal_images: true,
};
export const DEFAULT_NEW_USER_API: ApiSourceSetting = {
  allow_to_use: true,
  valid_until: null,
  max_conv_count: 10,
  total_ask_count: 100,
  rate_limits: [{ window_seconds: 60, max_requests: 10 }],
  daily_available_time_slots: [],
  available_models: ['gpt_3_5', 'gpt_4'],
  per_model_ask_count: { gpt_4: 20 },
  allow_custom_openai_api: false,
  custom_openai_api_settings: { url: null, key: null },
};

export const UserDefaultsConfig = z.object({
  /** Total spend budget of a new user in the billing currency (-1 = unlimited). */
  credits: Budget.default(-1),
  /** Web-account source settings of a new user. */
  openai_web: WebSourceSetting.default(DEFAULT_NEW_USER_WEB),
  /** API-key source settings of a new user. */
  openai_api: ApiSourceSetting.default(DEFAULT_NEW_USER_API),
});

export const BillingConfig = z.object({
  /** Currency of prices and budgets (ISO 4217 code, shown next to amounts). */
  currency: z
    .string()
    .regex(/^[A-Z]{3}$/)
    .default('USD'),
  /** Price per million input and output tokens of each product model; a model without a price costs nothing. */
  prices: z.record(z.string(), ModelPrice).default(DEFAULT_MODEL_PRICES),
  /** Warn the user once this share of a budget is spent (0–1). */
  warn_at: z.number().min(0).max(1).default(0.8),
  /** Output tokens assumed when an ask's cost is reserved up front (the real cost is settled at the end). */
  reserve_output_tokens: z.number().int().min(0).max(1_000_000).default(1000),
});
export type BillingConfig = z.infer<typeof BillingConfig>;

export const Config = z.object({
  openai_web: OpenaiWebConfig.prefault({}),
  openai_api: OpenaiApiConfig.prefault({}),
  common: CommonConfig.prefault({}),
  http: HttpConfig.prefault({}),
  data: DataConfig.prefault({}),
  auth: AuthConfig.prefault({}),
  stats: StatsConfig.prefault({}),
  log: LogConfig.prefault({}),
  user_defaults: UserDefaultsConfig.prefault({}),
  billing: BillingConfig.prefault({}),
});
export type Config = z.infer<typeof Config>;
export type ConfigInput = z.input<typeof Config>;

/** Upstream credentials: write-only, masked on read. */
export const Credentials = z.object({
  openai_web_access_token: z.string().nullable().default(null),
  openai_api_key: z.string().nullable().default(null),
});
export type Credentials = z.infer<typeof Credentials>;

export { WEB_MODELS };
