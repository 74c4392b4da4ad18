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

/** How one value of a change reads: '—' for none, yes/no, "(hidden)" for a secret, JSON for lists and objects. */
export function changeValueText(
  value: unknown,
  words: { none: string; yes: string; no: string; secret: string },
): string {
  if (value === null || value === undefined || value === '') return words.none;
  if (value === MASKED_SECRET) return words.secret;
  if (typeof value === 'boolean') return value ? words.yes : words.no;
  if (typeof value === 'string') return value;
  if (typeof value === 'number') return String(value);
  return JSON.stringify(value);
}

/** The changes of an entry as lines "field: before → after", in field order. */
export function changeLines(
  changes: AuditEntry['changes'],
  words: { none: string; yes: string; no: string; secret: string },
): string[] {
  return Object.keys(changes)
    .sort()
    .map((field) => {
      const [before, after] = changes[field] ?? [null, null];
      return `${field}: ${changeValueText(before, words)} → ${changeValueText(after, words)}`;
    });
}
