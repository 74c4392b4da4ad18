import type { TFunction } from 'i18next';
import { MODEL_DISPLAY } from '@cc/contracts';
import type { AuditAction } from '@cc/contracts';
import { modelDisplay } from '../../../../components/model-display';
import { optionText, pathLabel } from '../../config/lib/field-text';
import type { AdminKey } from '../../shared/admin-i18n';
import { settingFieldLabel } from '../../user/lib/setting-labels';
import type { ChangeNames } from './audit-text';

type AdminTranslate = (key: AdminKey, options?: Record<string, unknown>) => string;

/** The fields of records other than settings and config that entries name, each with its words. */
const FIELDS = [
  'username',
  'nickname',
  'email',
  'avatar',
  'remark',
  'is_active',
  'is_superuser',
  'is_verified',
  'group_id',
  'password',
  'name',
  'members',
  'source',
  'hostname',
  'ip_address',
  'port',
  'base_path',
  'use_tls',
  'status',
  'weight',
  'max_concurrency',
  'enabled',
  'interval_seconds',
  'title',
  'user_id',
  'owner',
  'is_valid',
  'expires_at',
  'max_uses',
  'group',
  'revoked',
  'user',
  'via',
  'share_id',
  'subject',
  'reason',
  'openai_web_access_token',
  'openai_api_key',
] as const;
type Field = (typeof FIELDS)[number];

/** Actions whose changes are a user's or a group's settings: quotas and budgets, where -1 is unlimited. */
const settingsOf = (action: AuditAction) =>
  action === 'user.settings' || action === 'user.update' || action.startsWith('group.');
const isField = (name: string): name is Field => (FIELDS as readonly string[]).includes(name);

/**
 * A changed field of an audit entry named as the admin pages name it, in the reader's language: a user's or a
 * group's quotas as on the quotas form ("OpenAI Web › Total asks"), the config's fields as on the config page
 * ("Statistics › Keep the audit log (seconds)"), other records' fields by their own words. A field with no words
 * (one a later version adds) keeps its name.
 */
export function auditFieldLabel(
  action: AuditAction,
  field: string,
  ta: AdminTranslate,
  t: TFunction,
  exists: (key: string) => boolean,
): string {
  if (action === 'config.update') {
    const section = (key: string) =>
      exists(`adminx.config.sections.${key}`) ? t(`adminx.config.sections.${key}`) : key;
    return pathLabel(t, exists, field, section);
  }
  // A user's settings, changed directly or by joining or leaving a group, and a group's template.
  if (settingsOf(action)) {
    const setting = settingFieldLabel(field.replace(/^budgets\./, ''), ta, t);
    if (setting) return setting;
  }
  return isField(field) ? ta(`audit.fields.${field}`) : field;
}

/**
 * How an entry's changes are named: fields by `auditFieldLabel`; a source, a model and a config option (a log level,
 * an upload strategy) in words; a quota's or budget's -1 as "Unlimited" (in the config, -1 means other things: a
 * retention of -1 keeps forever, so it stays a number there); any other text as it is (names, addresses, dates).
 */
export function auditNames(
  action: AuditAction,
  ta: AdminTranslate,
  t: TFunction,
  exists: (key: string) => boolean,
): ChangeNames {
  return {
    field: (path) => auditFieldLabel(action, path, ta, t, exists),
    value: (path, value) => {
      if (exists(`sources.${value}`) && /(^|\.)source$/.test(path)) return t(`sources.${value}`);
      if (value in MODEL_DISPLAY) return modelDisplay(value).label;
      return action === 'config.update' ? optionText(t, exists, value) : value;
    },
    number: (_path, value) => (value === -1 && settingsOf(action) ? ta('common.unlimited') : String(value)),
  };
}
