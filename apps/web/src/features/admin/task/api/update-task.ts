import { useMutation, useQueryClient } from '@tanstack/react-query';
import type { TaskRead, TaskUpdate } from '@cc/contracts';
import { adminApiPaths } from '../../../../config/admin-paths';
import { apiClient } from '../../../../lib/api-client';
import { adminKeys } from '../../shared/query-keys';

export function updateTask(input: { name: string; patch: TaskUpdate }): Promise<TaskRead> {
  return apiClient.patch<TaskRead>(adminApiPaths.task(input.name), { body: input.patch });
}

/** Enables / disables a task or changes its interval. */
export function useUpdateTask() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: updateTask,
    onSuccess: () => client.invalidateQueries({ queryKey: adminKeys.tasks }),
  });
}
