import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type { UserGroupRead, UserGroupWrite } from '@cc/contracts';
import { adminApiPaths } from '../../../../config/admin-paths';
import { apiClient } from '../../../../lib/api-client';
import { adminKeys } from '../../shared/query-keys';

export function getGroups(): Promise<UserGroupRead[]> {
  return apiClient.get<UserGroupRead[]>(adminApiPaths.groups);
}

/** Every group with its member count. */
export function useGroups() {
  return useQuery({ queryKey: adminKeys.groups, queryFn: getGroups, staleTime: 10_000 });
}

/** Creates a group (no id) or saves one: a save changes its members too, so the user list is refreshed. */
export function saveGroup(input: { id?: number; group: UserGroupWrite }): Promise<UserGroupRead> {
  return input.id === undefined
    ? apiClient.post<UserGroupRead>(adminApiPaths.groups, { body: input.group })
    : apiClient.put<UserGroupRead>(adminApiPaths.group(input.id), { body: input.group });
}

export function deleteGroup(id: number): Promise<null> {
  return apiClient.delete<null>(adminApiPaths.group(id));
}

function useGroupMutation<I>(fn: (input: I) => Promise<unknown>) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: fn,
    onSuccess: async () => {
      await client.invalidateQueries({ queryKey: adminKeys.groups });
      await client.invalidateQueries({ queryKey: adminKeys.users });
    },
  });
}

export const useSaveGroup = () => useGroupMutation(saveGroup);
export const useDeleteGroup = () => useGroupMutation(deleteGroup);
