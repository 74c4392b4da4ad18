import { queryOptions, useQuery } from '@tanstack/react-query';
import type { ConversationRead } from '@cc/contracts';
import { apiPaths } from '../../../config/paths';
import { apiClient } from '../../../lib/api-client';
import { queryKeys } from '../../../lib/query-keys';

/** Most recently active first. */
export function sortConversations(list: readonly ConversationRead[]): ConversationRead[] {
  return [...list].sort((a, b) =>
    (b.update_time ?? b.create_time).localeCompare(a.update_time ?? a.create_time),
  );
}

export async function getConversations(): Promise<ConversationRead[]> {
  return sortConversations(await apiClient.get<ConversationRead[]>(apiPaths.conversations));
}

export const conversationsQueryOptions = queryOptions({
  queryKey: queryKeys.conversationList,
  queryFn: getConversations,
});

export function useConversations() {
  return useQuery(conversationsQueryOptions);
}
