import { useMutation, useQueryClient } from '@tanstack/react-query';
import { adminApiPaths } from '../../../../config/admin-paths';
import { apiClient } from '../../../../lib/api-client';
import { adminKeys } from '../../shared/query-keys';

/** Revokes every working share link of a conversation; resolves to how many there were. */
export function revokeConversationShares(id: string): Promise<number> {
  return apiClient.delete<number>(adminApiPaths.conversationShares(id));
}

export function useRevokeConversationShares() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: revokeConversationShares,
    onSettled: () => client.invalidateQueries({ queryKey: adminKeys.conversations }),
  });
}
