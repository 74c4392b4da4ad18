import { useMutation, useQueryClient } from '@tanstack/react-query';
import type { UserReadAdmin, UserUpdateAdmin } from '@cc/contracts';
import { adminApiPaths } from '../../../../config/admin-paths';
import { apiClient } from '../../../../lib/api-client';
import { queryKeys } from '../../../../lib/query-keys';
import { adminKeys } from '../../shared/query-keys';

export function updateUser(input: { id: number; patch: UserUpdateAdmin }): Promise<UserReadAdmin> {
  return apiClient.patch<UserReadAdmin>(adminApiPaths.user(input.id), { body: input.patch });
}

/** Basic fields and flags; the admin may be editing themself, so `me` is refreshed too. */
export function useUpdateUser() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: updateUser,
    onSuccess: async () => {
      await client.invalidateQueries({ queryKey: adminKeys.users });
      await client.invalidateQueries({ queryKey: queryKeys.me });
    },
  });
}
