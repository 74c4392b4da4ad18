import { useMutation, useQueryClient } from '@tanstack/react-query';
import { adminApiPaths } from '../../../../config/admin-paths';
import { apiClient } from '../../../../lib/api-client';
import { adminKeys } from '../../shared/query-keys';

export function deleteUser(id: number): Promise<null> {
  return apiClient.delete<null>(adminApiPaths.user(id));
}

export function useDeleteUser() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: deleteUser,
    onSuccess: async () => {
      await client.invalidateQueries({ queryKey: adminKeys.users });
      await client.invalidateQueries({ queryKey: adminKeys.conversations });
    },
  });
}
