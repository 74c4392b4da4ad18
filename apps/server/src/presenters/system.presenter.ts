import { TaskSummary } from '@cc/contracts';
import type { CompletionLog, TaskRead, TaskRun, TaskStatus } from '@cc/contracts';
import type { AskLogRow, TaskRow, TaskRunRow } from '../db/schema';
import { bool } from '../repositories/executor';

export function presentCompletionLog(r: AskLogRow & { username?: string | null }): CompletionLog {
  return {
    id: r.id,
    username: r.username ?? null,
    time: r.time,
    source: r.source,
    model: r.model,
    user_id: r.user_id,
    conversation_id: r.conversation_id,
    server_id: r.server_id,
    queueing_time: Number(r.queueing_time),
    ask_time: Number(r.ask_time),
    outcome: r.outcome,
    charged: bool(r.charged),
    error: r.error,
  };
}

/** A stored `{key, params}` summary, or null when there is none or it does not parse. */
function summaryOf(json: string | null): TaskSummary | null {
  if (!json) return null;
  try {
    const parsed = TaskSummary.safeParse(JSON.parse(json));
    return parsed.success ? parsed.data : null;
  } catch {
    return null;
  }
}

export function presentTask(row: TaskRow, description: string): TaskRead {
  return {
    name: row.name,
    description,
    enabled: bool(row.enabled),
    interval_seconds: row.interval_seconds,
    last_run_time: row.last_run_time,
    next_run_time: row.enabled ? row.next_run_time : null,
    status: row.last_status as TaskStatus,
    output: row.last_output,
    summary: row.last_status === 'failed' ? null : summaryOf(row.last_summary),
  };
}

export function presentTaskRun(row: TaskRunRow): TaskRun {
  return {
    id: row.id,
    name: row.task_name,
    trigger: row.trigger,
    start_time: row.start_time,
    end_time: row.end_time,
    status: row.status === 'success' ? 'success' : 'failed',
    output: row.output,
    summary: summaryOf(row.summary),
  };
}
