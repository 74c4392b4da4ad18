import { sql } from 'kysely';
import type { AuditLogInsert, AuditLogRow } from '../db/schema';
import type { Executor } from './executor';

/** What the audit log can be filtered by (all optional; times are ISO UTC). */
export interface AuditFilter {
  /** Actor's username, matched case-insensitively. */
  actor?: string;
  action?: string;
  targetType?: string;
  /** The target's id exactly, or a part of its label. */
  target?: string;
  /** Inclusive. */
  start?: string;
  /** Exclusive. */
  end?: string;
}

/** A lower-case LIKE pattern in which `%`, `_` and `\` of the user's text match themselves. */
function likePattern(text: string) {
  const pattern = `%${text.toLowerCase().replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
  return sql<string>`${pattern} escape '\\'`;
}

/**
 * The `audit_logs` table: append-only. There is no update, and the only delete is by age (the retention task):
 * nothing deletes or edits one entry.
 */
export function auditLogRepository(db: Executor) {
  const matching = (filter: AuditFilter) => {
    let q = db.selectFrom('audit_logs');
    if (filter.actor)
      q = q.where((eb) => eb(eb.fn('lower', ['actor_name']), '=', filter.actor!.toLowerCase()));
    if (filter.action) q = q.where('action', '=', filter.action);
    if (filter.targetType) q = q.where('target_type', '=', filter.targetType);
    if (filter.target) {
      const target = filter.target;
      q = q.where((eb) =>
        eb.or([
          eb('target_id', '=', target),
          eb(eb.fn('lower', ['target_label']), 'like', likePattern(target)),
        ]),
      );
    }
    if (filter.start) q = q.where('time', '>=', filter.start);
    if (filter.end) q = q.where('time', '<', filter.end);
    return q;
  };
  return {
    async insert(entry: AuditLogInsert): Promise<void> {
      await db.insertInto('audit_logs').values(entry).execute();
    },
    /** A page of matching entries, newest first. */
    list(filter: AuditFilter, page: { offset: number; limit: number }): Promise<AuditLogRow[]> {
      return matching(filter)
        .selectAll()
        .orderBy('time', 'desc')
        .orderBy('id', 'desc')
        .offset(page.offset)
        .limit(page.limit)
        .execute();
    },
    async count(filter: AuditFilter): Promise<number> {
      const r = await matching(filter)
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .executeTakeFirstOrThrow();
      return Number(r.n);
    },
    async purgeBefore(time: string): Promise<number> {
      const r = await db.deleteFrom('audit_logs').where('time', '<', time).executeTakeFirst();
      return Number(r.numDeletedRows);
    },
  };
}
