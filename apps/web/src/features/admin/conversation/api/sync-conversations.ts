import { useMutation, useQueryClient } from '@tanstack/react-query';
import type { SyncSummary } from '@cc/contracts';
import { adminApiPaths } from '../../../../config/admin-paths';
import { apiClient } from '../../../../lib/api-client';
import { queryKeys } from '../../../../lib/query-keys';
import { adminKeys } from '../../shared/query-keys';

/** Fetches the conversation list of the web account; those deleted there become invalid here. */
export function syncConversations(): Promise<SyncSummary> {
  return apiClient.post<SyncSummary>(adminApiPaths.syncConversations);
}

export function useSyncConversations() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: syncConversations,
    onSuccess: async () => {
      await client.invalidateQueries({ queryKey: adminKeys.conversations });
      await client.invalidateQueries({ queryKey: queryKeys.conversations });
    },
  });
}
