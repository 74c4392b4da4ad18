import { useQuery } from '@tanstack/react-query';
import type { SharedConversation } from '@cc/contracts';
import { apiPaths } from '../../../config/paths';
import { apiClient } from '../../../lib/api-client';

/** The snapshot behind a share link (public; a revoked or unknown link answers 404). */
export function useSharedConversation(token: string) {
  return useQuery({
    queryKey: ['share', token],
    queryFn: () =>
      apiClient.get<SharedConversation>(apiPaths.sharedView(token), { silent: true, noAuthDialog: true }),
    retry: false,
    staleTime: 60_000,
  });
}
