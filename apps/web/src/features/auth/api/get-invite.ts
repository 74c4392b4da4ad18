import { useQuery } from '@tanstack/react-query';
import type { InviteStatus } from '@cc/contracts';
import { apiPaths } from '../../../config/paths';
import { apiClient } from '../../../lib/api-client';

/** Whether an invite link works (public). */
export function useInvite(token: string) {
  return useQuery({
    queryKey: ['invite', token],
    queryFn: () => apiClient.get<InviteStatus>(apiPaths.invite(token), { silent: true, noAuthDialog: true }),
    retry: false,
  });
}
