import { useMutation, useQueryClient } from '@tanstack/react-query';
import type { ConversationHistory, ConversationRead } from '@cc/contracts';
import { apiPaths } from '../../../config/paths';
import { apiClient } from '../../../lib/api-client';
import { queryKeys } from '../../../lib/query-keys';

export function renameConversation(input: {
  conversationId: string;
  title: string;
}): Promise<ConversationRead> {
  return apiClient.patch<ConversationRead>(apiPaths.renameConversation(input.conversationId, input.title));
}

export function useRenameConversation() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: renameConversation,
    onSuccess: (_, { conversationId, title }) => {
      client.setQueryData<ConversationHistory>(queryKeys.conversation(conversationId), (old) =>
        old ? { ...old, title } : old,
      );
      void client.invalidateQueries({ queryKey: queryKeys.conversationList });
    },
  });
}
