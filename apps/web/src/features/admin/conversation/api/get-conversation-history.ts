import { useQuery } from '@tanstack/react-query';
import type { ConversationHistory } from '@cc/contracts';
import { adminApiPaths } from '../../../../config/admin-paths';
import { apiClient } from '../../../../lib/api-client';
import { adminKeys } from '../../shared/query-keys';

export function getConversationHistory(id: string): Promise<ConversationHistory> {
  return apiClient.get<ConversationHistory>(adminApiPaths.conversation(id));
}

/** The history of any user's conversation, read-only. */
export function useConversationHistory(id: string | null) {
  return useQuery({
    queryKey: adminKeys.conversationHistory(id ?? ''),
    queryFn: () => getConversationHistory(id ?? ''),
    enabled: !!id,
    staleTime: 60_000,
  });
}
