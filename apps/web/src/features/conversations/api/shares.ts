import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type { ShareCreated, ShareRead } from '@cc/contracts';
import { apiPaths } from '../../../config/paths';
import { apiClient } from '../../../lib/api-client';
import { queryKeys } from '../../../lib/query-keys';

/** The user's own share links, newest first (revoked ones included). */
export function useOwnShares(enabled = true) {
  return useQuery({
    queryKey: queryKeys.shares,
    queryFn: () => apiClient.get<ShareRead[]>(apiPaths.shares),
    enabled,
  });
}

export function useCreateShare() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (conversationId: string) =>
      apiClient.post<ShareCreated>(apiPaths.conversationShares(conversationId)),
    onSuccess: () => void client.invalidateQueries({ queryKey: queryKeys.conversations }),
  });
}

export function useRevokeShare() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (shareId: number) => apiClient.delete<ShareRead>(apiPaths.share(shareId)),
    onSuccess: () => void client.invalidateQueries({ queryKey: queryKeys.conversations }),
  });
}

/** The full address of a share link's page on this site. */
export function shareUrl(path: string): string {
  return new URL(path, window.location.origin).toString();
}
