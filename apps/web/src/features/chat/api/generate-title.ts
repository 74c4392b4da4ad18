import { apiPaths } from '../../../config/paths';
import { apiClient } from '../../../lib/api-client';

/** PATCH /api/conv/{id}/gen_title?message_id=…: the server names a new web conversation. */
export function generateTitle(conversationId: string, messageId: string): Promise<string> {
  return apiClient.patch<string>(apiPaths.generateTitle(conversationId, messageId), { silent: true });
}
