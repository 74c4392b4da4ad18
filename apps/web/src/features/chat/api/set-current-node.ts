import type { ConversationRead } from '@cc/contracts';
import { apiPaths } from '../../../config/paths';
import { apiClient } from '../../../lib/api-client';

/** PUT /api/conv/{id}/current-node: the branch shown ends at `currentNode` (kept for reloads and other views). */
export function setCurrentNode(conversationId: string, currentNode: string): Promise<ConversationRead> {
  return apiClient.put<ConversationRead>(apiPaths.currentNode(conversationId), {
    body: { current_node: currentNode },
  });
}
