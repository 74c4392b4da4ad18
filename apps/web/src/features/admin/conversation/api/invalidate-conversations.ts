import { useMutation, useQueryClient } from '@tanstack/react-query';
import { adminApiPaths } from '../../../../config/admin-paths';
import { apiClient } from '../../../../lib/api-client';
import { queryKeys } from '../../../../lib/query-keys';
import { runBulk } from '../../shared/bulk';
import { adminKeys } from '../../shared/query-keys';

/** Marks a conversation invalid: hidden from its owner, kept in the database. */
export function invalidateConversation(id: string): Promise<null> {
  return apiClient.delete<null>(adminApiPaths.conversation(id), { silent: true });
}

export function useInvalidateConversations(onProgress?: (finished: number, total: number) => void) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (ids: string[]) => runBulk(ids, invalidateConversation, { onProgress }),
    onSettled: async () => {
      await client.invalidateQueries({ queryKey: adminKeys.conversations });
      await client.invalidateQueries({ queryKey: queryKeys.conversations });
    },
  });
}
