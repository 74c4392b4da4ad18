import { z } from 'zod';
import {
  BOOTSTRAP_ONLY_KEYS,
  CONFIG_SECRET_KEYS,
  ERRORS,
  ConfigWrite,
  CredentialsWrite,
  MASKED_SECRET,
  RESTART_REQUIRED_KEYS,
  VALIDATION_MESSAGES,
} from '@cc/contracts';
import type { Config, ConfigSaved, CredentialsRead } from '@cc/contracts';
import type { AppContext } from '../app-context';
import { AppError } from '../errors/app-error';
import { SYNC_TASK } from '../tasks/builtin';
import { diffChanges, recordAudit } from './audit.service';
import type { AuditActor, AuditChanges } from './audit.service';
import { loadCredentials, saveCredentials } from './credentials.service';
import { announceChange } from './shared-changes.service';
import { configuredModels, warmTokenizers } from '../sources/tokens';

type Tree = Record<string, unknown>;

/** Leaf values by dotted key (arrays are leaves). */
function flatten(value: unknown, prefix = '', out: Record<string, string> = {}): Record<string, string> {
  if (value && typeof value === 'object' && !Array.isArray(value)) {
    for (const [k, v] of Object.entries(value as Tree)) flatten(v, prefix ? `${prefix}.${k}` : k, out);
  } else {
    out[prefix] = JSON.stringify(value ?? null);
  }
  return out;
}

/** Dotted keys whose value differs between two configs. */
export function changedKeys(before: unknown, after: unknown): string[] {
  const a = flatten(before);
  const b = flatten(after);
  return [...new Set([...Object.keys(a), ...Object.keys(b)])].filter((k) => a[k] !== b[k]).sort();
}

export function needsRestart(key: string): boolean {
  return RESTART_REQUIRED_KEYS.some((p) => (p.endsWith('.') ? key.startsWith(p) : key === p));
}

const isSecret = (key: string) => (CONFIG_SECRET_KEYS as readonly string[]).includes(key);

/** `scheme://user:` + the password + `@` (the last `@` of the authority ends the user info, as in WHATWG URLs). */
const URL_PASSWORD = /^([a-z][a-z0-9+.-]*:\/\/[^/?#:]*:)([^/?#]+)@/i;
/** A `password=` query parameter (libpq-style connection strings accept one). */
const QUERY_PASSWORD = /([?&]password=)([^&#]+)/gi;

/** A URL with its passwords (user info and `password=` parameter) replaced by the mask; other strings as they are. */
export function maskUrlPassword(url: string | null): string | null {
  if (!url) return url;
  return url
    .replace(URL_PASSWORD, (_, head: string) => `${head}${MASKED_SECRET}@`)
    .replace(QUERY_PASSWORD, (_, head: string) => `${head}${MASKED_SECRET}`);
}

function carriesMask(url: string): boolean {
  if (URL_PASSWORD.exec(url)?.[2] === MASKED_SECRET) return true;
  return [...url.matchAll(QUERY_PASSWORD)].some((m) => m[2] === MASKED_SECRET);
}

/** The saved (runtime) URLs that may carry a password: shown masked, the mask sent back keeps the password. */
const PROXY_SECTIONS = ['openai_web', 'openai_api'] as const;

/**
 * The URL to keep for a submitted one: the stored URL when the submitted one is its masked form; the submitted
 * one when it carries no mask. A mask in an otherwise changed URL is refused (undefined): keeping the old password
 * there would send it to another host or user, storing the mask would break the connection.
 */
function unmaskUrl(submitted: string | null, stored: string | null): string | null | undefined {
  if (submitted === null || submitted === stored) return submitted;
  if (stored !== null && submitted === maskUrlPassword(stored)) return stored;
  return carriesMask(submitted) ? undefined : submitted;
}

/**
 * The live config as the admin sees it: the secrets it carries (set in config.yaml or the environment) and the
 * passwords inside its URLs are masked.
 */
export function presentConfig(ctx: AppContext, config: Config = ctx.runtime.current()): ConfigWrite {
  const boot = ctx.config;
  return {
    ...config,
    openai_web: { ...config.openai_web, proxy: maskUrlPassword(config.openai_web.proxy) },
    openai_api: { ...config.openai_api, proxy: maskUrlPassword(config.openai_api.proxy) },
    data: {
      ...config.data,
      database_url: maskUrlPassword(config.data.database_url),
      redis_url: maskUrlPassword(config.data.redis_url),
    },
    auth: {
      ...config.auth,
      secret_key: boot.auth.secret_key ? MASKED_SECRET : null,
      previous_secret_key: boot.auth.previous_secret_key ? MASKED_SECRET : null,
      jwt_secret: boot.auth.jwt_secret ? MASKED_SECRET : null,
      user_secret: boot.auth.user_secret ? MASKED_SECRET : null,
      metrics_token: boot.auth.metrics_token ? MASKED_SECRET : null,
      oidc: { ...config.auth.oidc, client_secret: boot.auth.oidc.client_secret ? MASKED_SECRET : null },
    },
    common: {
      ...config.common,
      initial_admin_user_password: boot.common.initial_admin_user_password ? MASKED_SECRET : null,
    },
  };
}

/**
 * Saves the config for every instance (settings table) and applies what can be applied live: upstream settings
 * (the upstream directory is refreshed) and the conversation sync schedule. The secrets inside the config are
 * never stored through the API. Returns the changed keys that wait for a restart.
 */
export async function saveSystemConfig(
  ctx: AppContext,
  input: ConfigWrite,
  /** Who saves it (the changed keys are recorded in the audit log, secrets masked). */
  actor?: AuditActor,
): Promise<ConfigSaved> {
  const before = ctx.runtime.current();
  const changed = changedKeys(presentConfig(ctx, before), input).filter((k) => !isSecret(k));
  // Listen address, database, secrets, logging and the boot-time admin come from config.yaml/env only: saving
  // them here could never take effect, so the change is refused rather than silently kept.
  const bootOnly = changed.filter((k) => BOOTSTRAP_ONLY_KEYS.some((p) => k.startsWith(p)));
  if (bootOnly.length > 0) {
    throw new AppError(ERRORS.invalidParams, {
      detail: bootOnly.map((k) => ({
        loc: ['body', ...k.split('.')],
        msg: VALIDATION_MESSAGES.bootstrapOnly,
        type: 'bootstrap_only',
      })),
    });
  }
  const restart = changed.filter((k) => needsRestart(k));
  const next: Config = {
    ...input,
    // The data section is stored as shown (masked): the bootstrap values always win over the stored ones.
    openai_web: { ...input.openai_web },
    openai_api: { ...input.openai_api },
    auth: {
      ...input.auth,
      secret_key: null,
      previous_secret_key: null,
      jwt_secret: null,
      user_secret: null,
      metrics_token: null,
      oidc: { ...input.auth.oidc, client_secret: null },
    },
    common: { ...input.common, initial_admin_user_password: null },
  };
  const maskedButChanged: string[] = [];
  for (const section of PROXY_SECTIONS) {
    const url = unmaskUrl(input[section].proxy, before[section].proxy);
    if (url === undefined) maskedButChanged.push(`${section}.proxy`);
    else next[section].proxy = url;
  }
  if (maskedButChanged.length > 0) {
    throw new AppError(ERRORS.invalidParams, {
      detail: maskedButChanged.map((k) => ({
        loc: ['body', ...k.split('.')],
        msg: VALIDATION_MESSAGES.maskedPassword,
        type: 'masked_password',
      })),
    });
  }
  await ctx.runtime.save(next);
  // A model newly mapped to a code of another encoding: its ranks load now rather than during an ask.
  warmTokenizers(configuredModels(next));
  const web = next.openai_web;
  if (
    web.sync_conversations_schedule !== before.openai_web.sync_conversations_schedule ||
    web.sync_conversations_schedule_interval_hours !==
      before.openai_web.sync_conversations_schedule_interval_hours
  ) {
    await ctx.tasks.update(SYNC_TASK, {
      enabled: web.sync_conversations_schedule,
      interval_seconds: web.sync_conversations_schedule_interval_hours * 3600,
    });
  }
  await ctx.upstream.refresh();
  announceChange(ctx, 'config');
  const shown = presentConfig(ctx);
  const changes = diffChanges(presentConfig(ctx, before), shown, isSecret);
  if (Object.keys(changes).length > 0) {
    await recordAudit(ctx, actor, {
      action: 'config.update',
      targetType: 'config',
      targetLabel: 'config',
      changes,
    });
  }
  return { config: shown, restart_required: restart };
}

let schemas: { config: Tree; credentials: Tree } | null = null;

/** JSON Schemas (input side) of the config and credentials forms; computed once. */
export function configSchemas() {
  schemas ??= {
    config: z.toJSONSchema(ConfigWrite, { io: 'input', unrepresentable: 'any' }),
    credentials: z.toJSONSchema(CredentialsWrite, { io: 'input', unrepresentable: 'any' }),
  };
  return {
    ...schemas,
    restart_required_keys: [...RESTART_REQUIRED_KEYS],
    bootstrap_only_keys: [...BOOTSTRAP_ONLY_KEYS],
  };
}

/** Credentials as the admin sees them: the mask when set, null when not. */
export async function readCredentials(ctx: AppContext): Promise<CredentialsRead> {
  const c = await loadCredentials(ctx);
  return {
    openai_web_access_token: c.openai_web_access_token ? MASKED_SECRET : null,
    openai_api_key: c.openai_api_key ? MASKED_SECRET : null,
  };
}

/**
 * Stores the credentials sealed (write-only): a new value replaces, null clears, the mask or an absent key keeps
 * the stored value. The upstream directory picks them up at once.
 */
export async function writeCredentials(
  ctx: AppContext,
  input: CredentialsWrite,
  /** Who writes them (the audit log records which changed, never the values). */
  actor?: AuditActor,
): Promise<CredentialsRead> {
  const stored = await loadCredentials(ctx);
  const pick = (value: string | null | undefined, old: string | null) =>
    value === undefined || value === MASKED_SECRET ? old : value;
  const next = {
    openai_web_access_token: pick(input.openai_web_access_token, stored.openai_web_access_token),
    openai_api_key: pick(input.openai_api_key, stored.openai_api_key),
  };
  await saveCredentials(ctx, next);
  await ctx.upstream.refresh();
  announceChange(ctx, 'credentials');
  const shown = (v: string | null) => (v ? MASKED_SECRET : null);
  const changes: AuditChanges = {};
  for (const key of ['openai_web_access_token', 'openai_api_key'] as const) {
    if (next[key] !== stored[key]) changes[key] = [shown(stored[key]), shown(next[key])];
  }
  if (Object.keys(changes).length > 0) {
    await recordAudit(ctx, actor, {
      action: 'credentials.update',
      targetType: 'credentials',
      targetLabel: 'credentials',
      changes,
    });
  }
  return readCredentials(ctx);
}
