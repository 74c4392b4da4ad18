/** Query keys shared across features, so one feature can invalidate what another reads without importing it. */
export const queryKeys = {
  me: ['user', 'me'] as const,
  myUsage: ['user', 'me', 'usage'] as const,
  conversations: ['conversations'] as const,
  conversationList: ['conversations', 'list'] as const,
  conversation: (id: string) => ['conversations', 'detail', id] as const,
  shares: ['conversations', 'shares'] as const,
  conversationSearch: (q: string) => ['conversations', 'search', q] as const,
  installedPlugins: ['plugins', 'installed'] as const,
  commonStatus: ['status', 'common'] as const,
};
