import { useMutation, useQueryClient } from '@tanstack/react-query';
import { apiPaths } from '../../../config/paths';
import { apiClient } from '../../../lib/api-client';
import { queryKeys } from '../../../lib/query-keys';
import { updateLoadedConversations } from './get-conversations';
import type { ConversationPages } from './get-conversations';

export function deleteConversation(conversationId: string): Promise<null> {
  return apiClient.delete<null>(apiPaths.conversation(conversationId));
}

export function useDeleteConversation() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: deleteConversation,
    onSuccess: (_, conversationId) => {
      client.setQueryData<ConversationPages>(queryKeys.conversationList, (old) =>
        updateLoadedConversations(old, (page) => page.filter((c) => c.conversation_id !== conversationId)),
      );
      client.removeQueries({ queryKey: queryKeys.conversation(conversationId) });
      void client.invalidateQueries({ queryKey: queryKeys.conversationList });
    },
  });
}
