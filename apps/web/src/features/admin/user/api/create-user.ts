import { useMutation, useQueryClient } from '@tanstack/react-query';
import type { UserCreate, UserReadAdmin } from '@cc/contracts';
import { adminApiPaths } from '../../../../config/admin-paths';
import { apiClient } from '../../../../lib/api-client';
import { adminKeys } from '../../shared/query-keys';

export function createUser(body: UserCreate): Promise<UserReadAdmin> {
  return apiClient.post<UserReadAdmin>(adminApiPaths.register, { body });
}

export function useCreateUser() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: createUser,
    onSuccess: () => client.invalidateQueries({ queryKey: adminKeys.users }),
  });
}
