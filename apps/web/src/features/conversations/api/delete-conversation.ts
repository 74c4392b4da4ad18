import { useMutation, useQueryClient } from '@tanstack/react-query';
import type { ConversationRead } from '@cc/contracts';
import { apiPaths } from '../../../config/paths';
import { apiClient } from '../../../lib/api-client';
import { queryKeys } from '../../../lib/query-keys';

export function deleteConversation(conversationId: string): Promise<null> {
  return apiClient.delete<null>(apiPaths.conversation(conversationId));
}

export function useDeleteConversation() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: deleteConversation,
    onSuccess: (_, conversationId) => {
      client.setQueryData<ConversationRead[]>(queryKeys.conversationList, (old) =>
        old?.filter((c) => c.conversation_id !== conversationId),
      );
      client.removeQueries({ queryKey: queryKeys.conversation(conversationId) });
      void client.invalidateQueries({ queryKey: queryKeys.conversationList });
    },
  });
}
