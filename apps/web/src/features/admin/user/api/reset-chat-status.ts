import { useMutation, useQueryClient } from '@tanstack/react-query';
import type { UserReadAdmin } from '@cc/contracts';
import { adminApiPaths } from '../../../../config/admin-paths';
import { apiClient } from '../../../../lib/api-client';
import { adminKeys } from '../../shared/query-keys';

/** Frees a user whose chat status is stuck; quotas and settings stay as they are. */
export function resetChatStatus(id: number): Promise<UserReadAdmin> {
  return apiClient.post<UserReadAdmin>(adminApiPaths.resetChatStatus(id));
}

export function useResetChatStatus() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: resetChatStatus,
    onSuccess: () => client.invalidateQueries({ queryKey: adminKeys.users }),
  });
}
