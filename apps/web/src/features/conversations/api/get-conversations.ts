import { infiniteQueryOptions, useInfiniteQuery } from '@tanstack/react-query';
import type { InfiniteData } from '@tanstack/react-query';
import { useMemo } from 'react';
import type { ConversationRead } from '@cc/contracts';
import { apiPaths } from '../../../config/paths';
import { apiClient } from '../../../lib/api-client';
import { queryKeys } from '../../../lib/query-keys';

/** Conversations per page of the sidebar (the list loads more as it is scrolled). */
export const CONVERSATION_PAGE_SIZE = 50;

/** One page of the user's list, pinned first, then by last update (the server's order). */
export function getConversationsPage(after?: string): Promise<ConversationRead[]> {
  return apiClient.get<ConversationRead[]>(apiPaths.conversationPage(CONVERSATION_PAGE_SIZE, after));
}

export type ConversationPages = InfiniteData<ConversationRead[]>;

export const conversationsQueryOptions = infiniteQueryOptions({
  queryKey: queryKeys.conversationList,
  queryFn: ({ pageParam }) => getConversationsPage(pageParam),
  initialPageParam: undefined as string | undefined,
  // A short page is the last; the next starts after this one's last conversation.
  getNextPageParam: (page) =>
    page.length < CONVERSATION_PAGE_SIZE ? undefined : page[page.length - 1]?.conversation_id,
});

/** The pages loaded so far as one list, each conversation once (one updated between two pages may be in both). */
export function flattenPages(data: ConversationPages | undefined): ConversationRead[] {
  if (!data) return [];
  const seen = new Set<string>();
  const list: ConversationRead[] = [];
  for (const page of data.pages) {
    for (const c of page) {
      if (seen.has(c.conversation_id)) continue;
      seen.add(c.conversation_id);
      list.push(c);
    }
  }
  return list;
}

/** The user's conversations, a page at a time: `conversations` is what is loaded, `fetchNextPage` loads more. */
export function useConversations() {
  const query = useInfiniteQuery(conversationsQueryOptions);
  const conversations = useMemo(() => flattenPages(query.data), [query.data]);
  return { ...query, conversations };
}

/** Applies `change` to every loaded page (e.g. drop a deleted conversation) without a refetch. */
export function updateLoadedConversations(
  data: ConversationPages | undefined,
  change: (page: ConversationRead[]) => ConversationRead[],
): ConversationPages | undefined {
  return data ? { ...data, pages: data.pages.map(change) } : data;
}
