import { useMutation, useQueryClient } from '@tanstack/react-query';
import type { ConversationRead } from '@cc/contracts';
import { apiPaths } from '../../../config/paths';
import { apiClient } from '../../../lib/api-client';
import { queryKeys } from '../../../lib/query-keys';

/** Pins (at most 50; the server says so beyond) or unpins one of the user's conversations. */
export function pinConversation(input: {
  conversationId: string;
  pinned: boolean;
}): Promise<ConversationRead> {
  return apiClient.put<ConversationRead>(apiPaths.pinConversation(input.conversationId), {
    body: { pinned: input.pinned },
  });
}

export function usePinConversation() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: pinConversation,
    // The list's order changes (pinned first): load it again.
    onSuccess: () => void client.invalidateQueries({ queryKey: queryKeys.conversationList }),
  });
}
