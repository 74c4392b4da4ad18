import { MASKED_SECRET } from '@cc/contracts';
import type { AuditAction, AuditEntry } from '@cc/contracts';
import type { AdminKey } from '../../shared/admin-i18n';

/** The label of each action (every action has one: a new action without a label does not compile). */
export const ACTION_KEYS: Record<AuditAction, AdminKey> = {
  'auth.login': 'audit.actions.auth_login',
  'auth.login_failed': 'audit.actions.auth_login_failed',
  'auth.sso_login': 'audit.actions.auth_sso_login',
  'auth.sso_login_failed': 'audit.actions.auth_sso_login_failed',
  'user.create': 'audit.actions.user_create',
  'user.update': 'audit.actions.user_update',
  'user.delete': 'audit.actions.user_delete',
  'user.settings': 'audit.actions.user_settings',
  'user.reset_chat_status': 'audit.actions.user_reset_chat_status',
  'group.create': 'audit.actions.group_create',
  'group.update': 'audit.actions.group_update',
  'group.delete': 'audit.actions.group_delete',
  'conversation.invalidate': 'audit.actions.conversation_invalidate',
  'conversation.vanish': 'audit.actions.conversation_vanish',
  'conversation.assign': 'audit.actions.conversation_assign',
  'share.create': 'audit.actions.share_create',
  'share.revoke': 'audit.actions.share_revoke',
  'invite.create': 'audit.actions.invite_create',
  'invite.revoke': 'audit.actions.invite_revoke',
  'invite.use': 'audit.actions.invite_use',
  'server.create': 'audit.actions.server_create',
  'server.update': 'audit.actions.server_update',
  'server.delete': 'audit.actions.server_delete',
  'task.run': 'audit.actions.task_run',
  'task.update': 'audit.actions.task_update',
  'config.update': 'audit.actions.config_update',
  'credentials.update': 'audit.actions.credentials_update',
};

/** The words a change is read with: none, yes/no, a hidden secret. */
export interface ChangeWords {
  none: string;
  yes: string;
  no: string;
  secret: string;
}

/** How a change's fields and plain values are named (as they are, unless the page gives words for them). */
export interface ChangeNames {
  /** A field by its dotted path ("openai_web.total_ask_count" → "OpenAI Web › Total asks"). */
  field: (path: string) => string;
  /** A text value of a field (a source, a model), or the value as it is. */
  value: (path: string, value: string) => string;
  /** A number of a field ("Unlimited" for a quota's -1), or the number as it is. */
  number?: (path: string, value: number) => string;
}

const AS_THEY_ARE: ChangeNames = { field: (path) => path, value: (_path, value) => value };

/**
 * How one value of a change reads: '—' for none, yes/no, "(hidden)" for a secret; a list item by item ("; "), and
 * an item with fields as "field value" pairs named as the field's own (a rate limit: "Window (seconds) 60, Max
 * requests 5"), never JSON.
 */
export function changeValueText(
  value: unknown,
  words: ChangeWords,
  path = '',
  names: ChangeNames = AS_THEY_ARE,
): string {
  if (value === null || value === undefined || value === '') return words.none;
  if (value === MASKED_SECRET) return words.secret;
  if (typeof value === 'boolean') return value ? words.yes : words.no;
  if (typeof value === 'string') return names.value(path, value);
  if (typeof value === 'number') return names.number?.(path, value) ?? String(value);
  if (Array.isArray(value))
    return value.length === 0
      ? words.none
      : value.map((item) => changeValueText(item, words, `${path}.0`, names)).join('; ');
  if (typeof value === 'object')
    return Object.entries(value as Record<string, unknown>)
      .map(([key, item]) => {
        const sub = `${path}.${key}`;
        const named = names.field(sub);
        // The item's field by its own label (the last of the path's labels), or its key when it has none.
        const field = named === sub ? key : named.split(' › ').at(-1);
        return `${field} ${changeValueText(item, words, sub, names)}`;
      })
      .join(', ');
  return words.none; // (JSON holds no other kind of value)
}

/**
 * The changes of an entry as lines "field: before → after", in field order (the fields' paths). A group's id is not
 * shown beside its name.
 */
export function changeLines(
  changes: AuditEntry['changes'],
  words: ChangeWords,
  names: ChangeNames = AS_THEY_ARE,
): string[] {
  return Object.keys(changes)
    .filter((path) => !(path === 'group_id' && 'group' in changes))
    .sort()
    .map((path) => {
      const [before, after] = changes[path] ?? [null, null];
      const text = (value: unknown) => changeValueText(value, words, path, names);
      return `${names.field(path)}: ${text(before)} → ${text(after)}`;
    });
}
