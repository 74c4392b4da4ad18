import { useMutation } from '@tanstack/react-query';
import type { InviteAccept } from '@cc/contracts';
import { apiPaths } from '../../../config/paths';
import { apiClient } from '../../../lib/api-client';

/** Creates an account through an invite link (public); the page shows the errors itself. */
export function acceptInvite(input: { token: string; account: InviteAccept }): Promise<null> {
  return apiClient.post<null>(apiPaths.invite(input.token), {
    body: input.account,
    silent: true,
    noAuthDialog: true,
  });
}

export function useAcceptInvite() {
  return useMutation({ mutationFn: acceptInvite });
}
