import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type { InviteCreate, InviteCreated, InviteRead } from '@cc/contracts';
import { adminApiPaths } from '../../../../config/admin-paths';
import { apiClient } from '../../../../lib/api-client';
import { adminKeys } from '../../shared/query-keys';

export function getInvites(): Promise<InviteRead[]> {
  return apiClient.get<InviteRead[]>(adminApiPaths.invites);
}

/** Every invite link, newest first (tokens are never listed: they are shown once, when made). */
export function useInvites() {
  return useQuery({ queryKey: adminKeys.invites, queryFn: getInvites });
}

export function createInvite(input: InviteCreate): Promise<InviteCreated> {
  return apiClient.post<InviteCreated>(adminApiPaths.invites, { body: input });
}

export function revokeInvite(id: number): Promise<InviteRead> {
  return apiClient.delete<InviteRead>(adminApiPaths.invite(id));
}

function useInviteMutation<I, O>(fn: (input: I) => Promise<O>) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: fn,
    onSuccess: () => client.invalidateQueries({ queryKey: adminKeys.invites }),
  });
}

export const useCreateInvite = () => useInviteMutation(createInvite);
export const useRevokeInvite = () => useInviteMutation(revokeInvite);
