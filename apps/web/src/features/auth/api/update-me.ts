import { useMutation, useQueryClient } from '@tanstack/react-query';
import type { UserRead, UserUpdateSelf } from '@cc/contracts';
import { apiPaths } from '../../../config/paths';
import { apiClient } from '../../../lib/api-client';
import { queryKeys } from '../../../lib/query-keys';

/** PATCH /api/user/me: nickname, email, avatar or password. */
export function updateMe(patch: UserUpdateSelf): Promise<UserRead> {
  return apiClient.patch<UserRead>(apiPaths.me, { body: patch });
}

export function useUpdateMe() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: updateMe,
    onSuccess: (user) => client.setQueryData(queryKeys.me, user),
  });
}
