import { useMutation, useQueryClient } from '@tanstack/react-query';
import { adminApiPaths } from '../../../../config/admin-paths';
import { apiClient } from '../../../../lib/api-client';
import { queryKeys } from '../../../../lib/query-keys';
import { runBulk } from '../../shared/bulk';
import { adminKeys } from '../../shared/query-keys';

/** Destroys a conversation: removed from the database and from the upstream account. */
export function vanishConversation(id: string): Promise<null> {
  return apiClient.delete<null>(adminApiPaths.vanishConversation(id), { silent: true });
}

export function useVanishConversations(onProgress?: (finished: number, total: number) => void) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (ids: string[]) => runBulk(ids, vanishConversation, { onProgress }),
    onSettled: async () => {
      await client.invalidateQueries({ queryKey: adminKeys.conversations });
      await client.invalidateQueries({ queryKey: queryKeys.conversations });
    },
  });
}
