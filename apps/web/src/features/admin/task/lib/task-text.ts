import type { TaskSummary } from '@cc/contracts';
import type { AdminKey } from '../../shared/admin-i18n';

type Translate = (key: AdminKey, options?: Record<string, unknown>) => string;

/** The server's built-in tasks, whose names and descriptions the page translates (others show the server's text). */
const BUILTIN_TASKS = ['sync_openai_web_conversations', 'server_health_check', 'stats_retention'] as const;
export const isBuiltinTask = (name: string): name is (typeof BUILTIN_TASKS)[number] =>
  (BUILTIN_TASKS as readonly string[]).includes(name);

/** Summary keys the page has words for (the server's `TaskResult` summaries). */
const OUTPUT_KEYS = [
  'syncDone',
  'syncUpstreamEmpty',
  'syncTooManyMissing',
  'healthNone',
  'healthDone',
  'retentionDone',
] as const;
const isOutputKey = (key: string): key is (typeof OUTPUT_KEYS)[number] =>
  (OUTPUT_KEYS as readonly string[]).includes(key);

/** A task's name in the reader's language (a task the page does not know keeps its own name). */
export function taskName(ta: Translate, name: string): string {
  return isBuiltinTask(name) ? ta(`task.names.${name}`) : name;
}

/**
 * What a run produced, in the reader's language when the server gave a summary the page knows; otherwise the
 * server's text (a failed run's error, or a run recorded before summaries). Null when there is nothing.
 */
export function taskOutput(
  ta: Translate,
  run: { output: string | null; summary: TaskSummary | null },
): string | null {
  if (run.summary && isOutputKey(run.summary.key))
    return ta(`task.outputs.${run.summary.key}`, run.summary.params);
  return run.output || null;
}

/** "850 ms" / "12.3 s" between two ISO times. */
export function runDuration(ta: Translate, start: string, end: string): string {
  const ms = Math.max(0, Date.parse(end) - Date.parse(start));
  if (ms < 1000) return ta('task.ms', { count: ms });
  return ta('task.seconds', { count: Math.round(ms / 100) / 10 });
}
