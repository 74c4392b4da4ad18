import { useMutation, useQueryClient } from '@tanstack/react-query';
import { IMPORT_MAX_BYTES } from '@cc/contracts';
import type { ConversationRead } from '@cc/contracts';
import { apiPaths } from '../../../config/paths';
import { apiClient } from '../../../lib/api-client';
import { downloadThroughServer } from '../../../lib/assets';
import { queryKeys } from '../../../lib/query-keys';

/** Downloads one conversation as the server exports it (JSON history document or Markdown). */
export function exportConversation(conversationId: string, format: 'json' | 'md'): Promise<void> {
  return downloadThroughServer(apiPaths.exportConversation(conversationId, format), `conversation.${format}`);
}

/** Downloads every conversation of the user as one zip. */
export function exportAllConversations(): Promise<void> {
  return downloadThroughServer(apiPaths.exportAll, 'conversations.zip');
}

/** A file the browser can tell is not an export, before anything is sent. */
export class ImportFileError extends Error {
  constructor(readonly reason: 'tooLarge' | 'notJson') {
    super(reason);
  }
}

async function importFile(file: File): Promise<ConversationRead> {
  if (file.size > IMPORT_MAX_BYTES) throw new ImportFileError('tooLarge');
  let body: unknown;
  try {
    body = JSON.parse(await file.text()) as unknown;
  } catch {
    throw new ImportFileError('notJson');
  }
  return apiClient.post<ConversationRead>(apiPaths.importConversation, { body, silent: true });
}

/** Imports a JSON export as a new conversation of one's own. */
export function useImportConversation() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: importFile,
    onSuccess: () => void client.invalidateQueries({ queryKey: queryKeys.conversationList }),
  });
}
