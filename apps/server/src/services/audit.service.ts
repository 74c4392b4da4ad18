import { MASKED_SECRET, clip } from '@cc/contracts';
import type { AuditAction, AuditOutcome, AuditPage, AuditQuery, AuditTargetType } from '@cc/contracts';
import type { AppContext } from '../app-context';
import { presentAuditEntry } from '../presenters/audit.presenter';
import { auditLogRepository } from '../repositories/audit-log.repository';
import type { AuditFilter } from '../repositories/audit-log.repository';
import type { Executor } from '../repositories/executor';

/** Who acts, as the audit log names them. */
export interface AuditActor {
  /** Null when nobody is logged in (a failed login). */
  id: number | null;
  /** Username (for a failed login: the username tried). */
  name: string;
  /** The request's client address (behind a trusted proxy, the forwarded one). */
  address: string | null;
}

/** Changed fields by dotted name: `[before, after]`, null when absent. */
export type AuditChanges = Record<string, [unknown, unknown]>;

export interface AuditRecord {
  action: AuditAction;
  targetType: AuditTargetType;
  targetId?: string | number | null;
  /** A readable name of the target (username, hostname, title). */
  targetLabel?: string | null;
  changes?: AuditChanges;
  /** Default: success. */
  outcome?: AuditOutcome;
  /** An edit: recorded only when it changed something (a save of what was there is no change). */
  onlyIfChanged?: boolean;
  /**
   * Fields that describe the change rather than being part of it (how many members a group's edit reached), written
   * beside `changes`; with `onlyIfChanged` they alone do not make an entry.
   */
  context?: AuditChanges;
}

/**
 * Field names whose values are secrets wherever they appear (passwords, keys, tokens): their values are replaced
 * by the mask, so the audit log shows that they changed but never what they are.
 */
const SECRET_FIELD = /(password|secret|token|(^|_)key)$/i;

function lastSegment(key: string): string {
  return key.slice(key.lastIndexOf('.') + 1);
}

function masked(value: unknown): unknown {
  return value === null || value === undefined ? null : MASKED_SECRET;
}

/** Leaf values by dotted key; arrays are leaves. */
function flatten(value: unknown, prefix = '', out: Record<string, unknown> = {}): Record<string, unknown> {
  if (value && typeof value === 'object' && !Array.isArray(value)) {
    for (const [k, v] of Object.entries(value as Record<string, unknown>))
      flatten(v, prefix ? `${prefix}.${k}` : k, out);
  } else if (prefix) {
    out[prefix] = value ?? null;
  }
  return out;
}

/**
 * The fields that differ between two snapshots (null = the record did not exist), by dotted name, as
 * `[before, after]`. `secret` names further fields whose values are masked (the usual secret names always are).
 */
export function diffChanges(
  before: object | null,
  after: object | null,
  secret: (key: string) => boolean = () => false,
): AuditChanges {
  const a = flatten(before);
  const b = flatten(after);
  const out: AuditChanges = {};
  for (const key of [...new Set([...Object.keys(a), ...Object.keys(b)])].sort()) {
    const was = a[key] ?? null;
    const now = b[key] ?? null;
    if (JSON.stringify(was) === JSON.stringify(now)) continue;
    out[key] = secret(key) ? [masked(was), masked(now)] : [was, now];
  }
  return out;
}

/** Masks every value under a secret field name, whatever the caller passed. */
function scrubbed(changes: AuditChanges): AuditChanges {
  const out: AuditChanges = {};
  for (const [key, [was, now]] of Object.entries(changes)) {
    out[key] = SECRET_FIELD.test(lastSegment(key)) ? [masked(was), masked(now)] : [was, now];
  }
  return out;
}

/**
 * Appends one entry to the audit log. Pass the transaction of the change where there is one, so the change and
 * its entry are written together or not at all. Without an actor (boot, scheduled work) nothing is recorded.
 */
export async function recordAudit(
  ctx: AppContext,
  actor: AuditActor | undefined,
  record: AuditRecord,
  db: Executor = ctx.dbHandle.db,
): Promise<void> {
  if (!actor) return;
  if (record.onlyIfChanged && Object.keys(record.changes ?? {}).length === 0) return;
  await auditLogRepository(db).insert({
    time: new Date().toISOString(),
    actor_id: actor.id,
    actor_name: clip(actor.name, 255),
    address: actor.address?.slice(0, 64) ?? null,
    action: record.action,
    target_type: record.targetType,
    target_id: record.targetId === undefined || record.targetId === null ? null : String(record.targetId),
    target_label:
      record.targetLabel === undefined || record.targetLabel === null ? null : clip(record.targetLabel, 255),
    changes: JSON.stringify(scrubbed({ ...record.changes, ...record.context })),
    outcome: record.outcome ?? 'success',
  });
}

function filterOf(query: AuditQuery): AuditFilter {
  return {
    actor: query.actor,
    action: query.action,
    targetType: query.target_type,
    target: query.target,
    start: query.start_time && new Date(query.start_time).toISOString(),
    end: query.end_time && new Date(query.end_time).toISOString(),
  };
}

/** A page of the audit log, newest first, with the number of matching entries. */
export async function listAudit(ctx: AppContext, query: AuditQuery): Promise<AuditPage> {
  const repo = auditLogRepository(ctx.dbHandle.db);
  const filter = filterOf(query);
  const [rows, total] = await Promise.all([
    repo.list(filter, { offset: query.offset, limit: query.limit }),
    repo.count(filter),
  ]);
  return { items: rows.map(presentAuditEntry), total };
}

/** Rows the CSV export holds at most (newest first). */
export const AUDIT_CSV_MAX_ROWS = 50_000;

/**
 * One CSV cell: quoted when needed, and text a spreadsheet would run as a formula (starting with = + - @, or a
 * tab or carriage return) is prefixed with a quote so it stays text.
 */
export function csvCell(value: unknown): string {
  let text =
    value === null || value === undefined ? '' : typeof value === 'string' ? value : JSON.stringify(value);
  if (/^[=+\-@\t\r]/.test(text)) text = `'${text}`;
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

const CSV_COLUMNS = [
  'time',
  'actor_id',
  'actor_name',
  'address',
  'action',
  'target_type',
  'target_id',
  'target_label',
  'outcome',
  'changes',
] as const;

/** The matching entries (paging ignored, newest first, at most AUDIT_CSV_MAX_ROWS) as CSV with a header row. */
export async function exportAuditCsv(ctx: AppContext, query: AuditQuery): Promise<string> {
  const rows = await auditLogRepository(ctx.dbHandle.db).list(filterOf(query), {
    offset: 0,
    limit: AUDIT_CSV_MAX_ROWS,
  });
  const lines = [CSV_COLUMNS.join(',')];
  for (const entry of rows.map(presentAuditEntry)) {
    const changes = Object.entries(entry.changes)
      .map(([field, [was, now]]) => `${field}: ${JSON.stringify(was)} → ${JSON.stringify(now)}`)
      .join('; ');
    lines.push(CSV_COLUMNS.map((c) => csvCell(c === 'changes' ? changes : entry[c])).join(','));
  }
  return `${lines.join('\r\n')}\r\n`;
}
