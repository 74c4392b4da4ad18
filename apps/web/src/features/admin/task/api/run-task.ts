import { useMutation, useQueryClient } from '@tanstack/react-query';
import type { TaskRun } from '@cc/contracts';
import { adminApiPaths } from '../../../../config/admin-paths';
import { apiClient } from '../../../../lib/api-client';
import { adminKeys } from '../../shared/query-keys';

/** Runs a task now and waits for its result. */
export function runTask(name: string): Promise<TaskRun> {
  return apiClient.post<TaskRun>(adminApiPaths.runTask(name));
}

export function useRunTask() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: runTask,
    onSettled: () => client.invalidateQueries({ queryKey: adminKeys.tasks }),
  });
}
