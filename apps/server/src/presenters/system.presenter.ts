import type { CompletionLog, TaskRead, TaskRun, TaskStatus } from '@cc/contracts';
import type { AskLogRow, TaskRow, TaskRunRow } from '../db/schema';
import { bool } from '../repositories/executor';

export function presentCompletionLog(r: AskLogRow): CompletionLog {
  return {
    id: r.id,
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
  };
}

export function presentTaskRun(row: TaskRunRow): TaskRun {
  return {
    name: row.task_name,
    trigger: row.trigger,
    start_time: row.start_time,
    end_time: row.end_time,
    status: row.status === 'success' ? 'success' : 'failed',
    output: row.output,
  };
}
