import type { QueryClient } from '@tanstack/react-query';
import { getConversation } from '../features/conversations/api/get-conversation';
import { i18n } from '../i18n';
import { warmFormatters } from '../lib/format';
import { whenIdle } from '../lib/idle';
import { loadMarkdownEngine } from '../lib/markdown/load-engine';
import { queryKeys } from '../lib/query-keys';
import { getMe, hasLoginFlag } from '../lib/session-flag';

/** The chat page's code (a chunk of its own; its demo-mode notice fetches the admin strings it shows). */
export function loadConversationPage() {
  return import('./pages/conversation-route').then((m) => m.ConversationRoute);
}

/**
 * Opening a conversation: its history and the markdown engine start loading with the page's code instead of after
 * the page has rendered (each would otherwise wait for the one before).
 */
export function prefetchConversation(client: QueryClient, conversationId: string | null): void {
  if (!conversationId) return;
  void loadMarkdownEngine().catch(() => undefined);
  void client.prefetchQuery({
    queryKey: queryKeys.conversation(conversationId),
    // Silent: a failure is reported by the page's own request (the query refetches when it mounts).
    queryFn: () => getConversation(conversationId, { silent: true }),
    staleTime: 60_000,
  });
}

/**
 * At start, before the router: a visitor with the login flag is almost surely logged in, so what the first page
 * waits for starts at once instead of one after the other (the user, then the chat page's code, its history and
 * the markdown engine). Without the flag nothing starts: a logged-out visitor downloads no chat code.
 */
export function startLikelyLoads(client: QueryClient, url: URL): void {
  if (!hasLoginFlag()) return;
  // The route guard's own request for the user (ensureUser) joins this one while it runs.
  void client.prefetchQuery({ queryKey: queryKeys.me, queryFn: () => getMe({ noAuthDialog: true }) });
  if (url.pathname !== '/conversation') return;
  void loadConversationPage().catch(() => undefined);
  prefetchConversation(client, url.searchParams.get('id'));
  // Every message shows its time: the formatters are built while the page waits for its code and history.
  whenIdle(() => warmFormatters(i18n.language));
}
