import type { AppContext } from '../app-context';
import { askLogRepository } from '../repositories/ask-log.repository';
import { auditLogRepository } from '../repositories/audit-log.repository';
import { nowIso } from '../repositories/executor';
import { rateEventRepository } from '../repositories/rate-event.repository';
import { requestLogRepository } from '../repositories/request-log.repository';
import { sessionRepository } from '../repositories/session.repository';
import { sharedCapRepository } from '../repositories/shared-cap.repository';
import { taskRepository } from '../repositories/task.repository';
import { userSettingRepository } from '../repositories/user-setting.repository';

const DAY_S = 86_400;
/** Task run history kept, seconds. */
const TASK_RUNS_TTL_S = 30 * DAY_S;

export interface RetentionSummary {
  request_logs: number;
  ask_logs: number;
  sessions: number;
  rate_events: number;
  task_runs: number;
  shared_cap_events: number;
  audit_logs: number;
}

function before(seconds: number): string {
  return new Date(Date.now() - seconds * 1000).toISOString();
}

/** The longest rate-limit window any user (or the new-user defaults) has: older rate events count for nothing. */
async function longestRateWindow(ctx: AppContext): Promise<number> {
  const defaults = ctx.runtime.current().user_defaults;
  let longest = Math.max(
    0,
    ...defaults.openai_web.rate_limits.map((r) => r.window_seconds),
    ...defaults.openai_api.rate_limits.map((r) => r.window_seconds),
  );
  for (const row of await userSettingRepository(ctx.dbHandle.db).listSourceSettings()) {
    for (const json of [row.openai_web, row.openai_api]) {
      try {
        const parsed = JSON.parse(json) as { rate_limits?: { window_seconds?: number }[] };
        for (const r of parsed.rate_limits ?? []) longest = Math.max(longest, Number(r.window_seconds) || 0);
      } catch {
        // A row that does not parse has no window to keep.
      }
    }
  }
  return longest;
}

/**
 * Purges what is past its time: request and ask logs and audit entries older than their TTL (-1 keeps them; read
 * live from the config), expired sessions, rate events older than the longest window in use, task runs older
 * than 30 days and shared-cap places older than a day (the cap's window is 3 hours). The only deletion of audit
 * entries there is.
 */
export async function purgeExpiredData(ctx: AppContext): Promise<RetentionSummary> {
  const db = ctx.dbHandle.db;
  const { ask_stats_ttl, request_stats_ttl, audit_log_ttl } = ctx.runtime.current().stats;
  return {
    request_logs:
      request_stats_ttl < 0 ? 0 : await requestLogRepository(db).purgeBefore(before(request_stats_ttl)),
    ask_logs: ask_stats_ttl < 0 ? 0 : await askLogRepository(db).purgeBefore(before(ask_stats_ttl)),
    sessions: await sessionRepository(db).deleteExpired(nowIso()),
    rate_events: await rateEventRepository(db).purgeBefore(
      before(Math.max(DAY_S, await longestRateWindow(ctx))),
    ),
    task_runs: await taskRepository(db).purgeRunsBefore(before(TASK_RUNS_TTL_S)),
    shared_cap_events: await sharedCapRepository(db).purgeBefore(before(DAY_S)),
    audit_logs: audit_log_ttl < 0 ? 0 : await auditLogRepository(db).purgeBefore(before(audit_log_ttl)),
  };
}
