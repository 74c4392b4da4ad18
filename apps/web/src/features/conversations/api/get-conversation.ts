import { useQuery } from '@tanstack/react-query';
import type { ConversationHistory } from '@cc/contracts';
import { apiPaths } from '../../../config/paths';
import { apiClient } from '../../../lib/api-client';
import { queryKeys } from '../../../lib/query-keys';

export function getConversation(
  conversationId: string,
  options: { silent?: boolean } = {},
): Promise<ConversationHistory> {
  return apiClient.get<ConversationHistory>(apiPaths.conversation(conversationId), options);
}

/** The history of one conversation (mapping, current node, model, title). */
export function useConversationHistory(conversationId: string | null, options: { silent?: boolean } = {}) {
  return useQuery({
    queryKey: queryKeys.conversation(conversationId ?? ''),
    queryFn: () => getConversation(conversationId ?? '', options),
    enabled: !!conversationId,
    staleTime: 60_000,
  });
}
