import { useMutation, useQueryClient } from '@tanstack/react-query';
import type { ConversationRead } from '@cc/contracts';
import { adminApiPaths } from '../../../../config/admin-paths';
import { apiClient } from '../../../../lib/api-client';
import { queryKeys } from '../../../../lib/query-keys';
import { runBulk } from '../../shared/bulk';
import { adminKeys } from '../../shared/query-keys';

export function assignConversation(id: string, username: string): Promise<ConversationRead> {
  return apiClient.patch<ConversationRead>(adminApiPaths.assignConversation(id, username), { silent: true });
}

/** Gives conversations to another user (by username). */
export function useAssignConversations(onProgress?: (finished: number, total: number) => void) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: ({ ids, username }: { ids: string[]; username: string }) =>
      runBulk(ids, (id) => assignConversation(id, username), { onProgress }),
    onSettled: async () => {
      await client.invalidateQueries({ queryKey: adminKeys.conversations });
      await client.invalidateQueries({ queryKey: queryKeys.conversations });
    },
  });
}
