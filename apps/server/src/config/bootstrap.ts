import { chmodSync, existsSync, mkdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { parse as parseYaml } from 'yaml';
import { Config, VALIDATION_MESSAGES } from '@cc/contracts';
import type { ConfigInput } from '@cc/contracts';

/** Environment variables the server reads, and the config key each one sets. */
export const ENV_KEYS = {
  CC_HOST: ['http', 'host'],
  CC_PORT: ['http', 'port'],
  CC_TRUST_PROXY: ['http', 'trust_proxy'],
  CC_SHUTDOWN_DRAIN_SECONDS: ['http', 'shutdown_drain_seconds'],
  CC_DATA_DIR: ['data', 'data_dir'],
  CC_DATABASE_URL: ['data', 'database_url'],
  CC_REDIS_URL: ['data', 'redis_url'],
  CC_REDIS_PREFIX: ['data', 'redis_prefix'],
  CC_UPLOADS_DIR: ['data', 'uploads_dir'],
  CC_RUN_MIGRATION: ['data', 'run_migration'],
  CC_SECRET_KEY: ['auth', 'secret_key'],
  CC_PREVIOUS_SECRET_KEY: ['auth', 'previous_secret_key'],
  CC_INITIAL_ADMIN_USERNAME: ['common', 'initial_admin_user_username'],
  CC_INITIAL_ADMIN_PASSWORD: ['common', 'initial_admin_user_password'],
  CC_LOG_LEVEL: ['log', 'console_log_level'],
  CC_METRICS_TOKEN: ['auth', 'metrics_token'],
} as const;

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`Invalid configuration:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
  }
}

type Env = Record<string, string | undefined>;

function coerce(raw: string): unknown {
  if (raw === 'true') return true;
  if (raw === 'false') return false;
  if (/^-?\d+$/.test(raw)) return Number(raw);
  return raw;
}

/** CC_TRUST_PROXY: `false` or comma-separated addresses and networks (the schema refuses `true` and numbers). */
function trustProxyFromEnv(raw: string): unknown {
  const value = coerce(raw.trim());
  return typeof value === 'string'
    ? value
        .split(',')
        .map((s) => s.trim())
        .filter((s) => s !== '')
    : value;
}

/**
 * Creates a folder of the data directory (the directory itself included) readable by the server's user only:
 * it holds the database, the secrets, uploads and logs. An existing folder is left as it is (the admin's choice).
 */
export function ensurePrivateDir(dir: string): void {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
}

/**
 * Narrows a file of the data directory to 0600 (an earlier version created the database and logs 0644). Best
 * effort: a missing file or one the server may not change is left alone.
 */
export function restrictToOwner(file: string): void {
  try {
    chmodSync(file, 0o600);
  } catch {
    // Missing (nothing to narrow) or not ours (EPERM): the server still runs.
  }
}

/** Data dir is needed before config.yaml can be found: env, else the default. */
export function resolveDataDir(env: Env, cwd = process.cwd()): string {
  return path.resolve(cwd, env.CC_DATA_DIR ?? './data');
}

/**
 * Loads the configuration once: defaults ← `<data_dir>/config.yaml` ← environment. Fails with every problem
 * listed. The result is frozen; runtime-editable parts live in the runtime settings service.
 */
/**
 * The rules a config value may break that the schema names by their message key (for the web app to translate), in
 * words for the operator reading the console.
 */
const CONFIG_MESSAGES: Record<string, string> = {
  [VALIDATION_MESSAGES.passwordRule]:
    'a password is 7 to 128 printable ASCII characters (digits, letters, symbols), no spaces',
  [VALIDATION_MESSAGES.passwordRequired]: 'a password is required',
};

export function loadConfig(env: Env = process.env, options: { cwd?: string; overrides?: ConfigInput } = {}) {
  const cwd = options.cwd ?? process.cwd();
  const dataDir = resolveDataDir(env, cwd);
  const problems: string[] = [];
  let fromFile: Record<string, unknown> = {};
  const file = path.join(dataDir, 'config.yaml');
  if (existsSync(file)) {
    try {
      const parsed: unknown = parseYaml(readFileSync(file, 'utf8'));
      if (parsed && typeof parsed === 'object') fromFile = parsed as Record<string, unknown>;
      else if (parsed != null) problems.push(`${file}: expected a mapping at the top level`);
    } catch (e) {
      problems.push(`${file}: ${(e as Error).message}`);
    }
  }
  const merged = structuredClone({ ...fromFile, ...(options.overrides ?? {}) }) as Record<
    string,
    Record<string, unknown>
  >;
  for (const [name, [section, key]] of Object.entries(ENV_KEYS)) {
    const raw = env[name];
    if (raw === undefined || raw === '') continue;
    merged[section] ??= {};
    const target = merged[section];
    target[key] =
      key === 'trust_proxy'
        ? trustProxyFromEnv(raw)
        : key === 'port' || key === 'run_migration' || key === 'shutdown_drain_seconds'
          ? coerce(raw)
          : raw;
  }
  const result = Config.safeParse(merged);
  if (!result.success) {
    for (const issue of result.error.issues)
      problems.push(
        `${issue.path.join('.') || '(root)'}: ${CONFIG_MESSAGES[issue.message] ?? issue.message}`,
      );
  }
  if (result.success) problems.push(...unknownKeys(fromFile, result.data, file));
  const oidc = result.success ? result.data.auth.oidc : null;
  if (oidc?.enabled && (!oidc.issuer || !oidc.client_id))
    problems.push('auth.oidc: single sign-on is enabled but issuer or client_id is missing');
  if (problems.length > 0 || !result.success) throw new ConfigError(problems);
  const config = result.data;
  config.data.data_dir = path.resolve(cwd, config.data.data_dir);
  if (config.data.uploads_dir) config.data.uploads_dir = path.resolve(cwd, config.data.uploads_dir);
  return deepFreeze(config);
}

export type AppConfig = Readonly<Config>;

/** Sections and keys of the config file that the configuration does not have (a typo would otherwise do nothing). */
function unknownKeys(fromFile: Record<string, unknown>, parsed: Config, file: string): string[] {
  const known: Record<string, unknown> = parsed;
  const out: string[] = [];
  for (const [section, value] of Object.entries(fromFile)) {
    const target = known[section];
    if (target === undefined) {
      out.push(`${section}: unknown section in ${file}`);
      continue;
    }
    if (!value || typeof value !== 'object' || Array.isArray(value) || !target || typeof target !== 'object')
      continue;
    for (const key of Object.keys(value)) {
      if (!(key in target)) out.push(`${section}.${key}: unknown key in ${file}`);
    }
  }
  return out;
}

function deepFreeze<T>(value: T): T {
  if (value && typeof value === 'object') {
    for (const v of Object.values(value)) deepFreeze(v);
    Object.freeze(value);
  }
  return value;
}
