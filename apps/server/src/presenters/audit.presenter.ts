import type { AuditAction, AuditEntry, AuditOutcome, AuditTargetType } from '@cc/contracts';
import type { AuditLogRow } from '../db/schema';

function parseChanges(json: string): AuditEntry['changes'] {
  try {
    const parsed = JSON.parse(json) as unknown;
    return parsed && typeof parsed === 'object' ? (parsed as AuditEntry['changes']) : {};
  } catch {
    return {};
  }
}

/** An audit row as the admin API shows it (changes parsed). */
export function presentAuditEntry(row: AuditLogRow): AuditEntry {
  return {
    id: row.id,
    time: row.time,
    actor_id: row.actor_id,
    actor_name: row.actor_name,
    address: row.address,
    action: row.action as AuditAction,
    target_type: row.target_type as AuditTargetType,
    target_id: row.target_id,
    target_label: row.target_label,
    changes: parseChanges(row.changes),
    outcome: row.outcome as AuditOutcome,
  };
}
