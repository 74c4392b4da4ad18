import { keepPreviousData, useQuery } from '@tanstack/react-query';
import type { ConversationSearchHit } from '@cc/contracts';
import { apiPaths } from '../../../config/paths';
import { apiClient } from '../../../lib/api-client';
import { queryKeys } from '../../../lib/query-keys';

export function searchConversations(q: string): Promise<ConversationSearchHit[]> {
  return apiClient.get<ConversationSearchHit[]>(apiPaths.searchConversations(q));
}

/** The user's conversations whose title or messages contain `q` (searched on the server); idle while `q` is blank. */
export function useConversationSearch(q: string) {
  const query = q.trim();
  return useQuery({
    queryKey: queryKeys.conversationSearch(query),
    queryFn: () => searchConversations(query),
    enabled: query.length > 0,
    placeholderData: keepPreviousData,
    staleTime: 0,
  });
}
