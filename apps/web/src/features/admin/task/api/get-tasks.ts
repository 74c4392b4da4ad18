import { useQuery } from '@tanstack/react-query';
import type { TaskRead } from '@cc/contracts';
import { adminApiPaths } from '../../../../config/admin-paths';
import { apiClient } from '../../../../lib/api-client';
import { adminKeys } from '../../shared/query-keys';

export function getTasks(): Promise<TaskRead[]> {
  return apiClient.get<TaskRead[]>(adminApiPaths.tasks);
}

/** The scheduled tasks; polled every 10 s so a running task's status and output appear. */
export function useTasks() {
  return useQuery({ queryKey: adminKeys.tasks, queryFn: getTasks, refetchInterval: 10_000 });
}
