import { keepPreviousData, useQuery } from '@tanstack/react-query';
import type { ConversationRead } from '@cc/contracts';
import { adminApiPaths } from '../../../../config/admin-paths';
import type { AllConversationsQuery } from '../../../../config/admin-paths';
import { apiClient } from '../../../../lib/api-client';
import type { ListPage } from '../../../../lib/api-client';
import { adminKeys } from '../../shared/query-keys';

export function getAllConversations(query: AllConversationsQuery): Promise<ListPage<ConversationRead>> {
  return apiClient.getPage<ConversationRead>(adminApiPaths.allConversations(query));
}

/**
 * One page of every user's conversations, filtered on the server by source, validity, user and a search in titles
 * and messages, and sorted there.
 */
export function useAllConversations(query: AllConversationsQuery) {
  return useQuery({
    queryKey: adminKeys.conversationList(query),
    queryFn: () => getAllConversations(query),
    placeholderData: keepPreviousData,
    staleTime: 10_000,
  });
}
