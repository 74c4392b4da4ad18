import { useQuery } from '@tanstack/react-query';
import type { TaskRun } from '@cc/contracts';
import { adminApiPaths } from '../../../../config/admin-paths';
import { apiClient } from '../../../../lib/api-client';
import { adminKeys } from '../../shared/query-keys';

/** How many of a task's latest runs the history shows. */
export const TASK_HISTORY_SIZE = 20;

export function getTaskRuns(name: string): Promise<TaskRun[]> {
  return apiClient.get<TaskRun[]>(adminApiPaths.taskRuns(name, TASK_HISTORY_SIZE));
}

/** The latest runs of a task, newest first; fetched while its history is open (`name` set). */
export function useTaskRuns(name: string | null) {
  return useQuery({
    queryKey: [...adminKeys.tasks, 'runs', name] as const,
    queryFn: () => getTaskRuns(name ?? ''),
    enabled: name !== null,
  });
}
