import { useMutation, useQueryClient } from '@tanstack/react-query';
import type { UserRead, UserUpdateSelf } from '@cc/contracts';
import { apiPaths } from '../../../config/paths';
import { apiClient } from '../../../lib/api-client';
import type { RequestOptions } from '../../../lib/api-client';
import { queryKeys } from '../../../lib/query-keys';

/** PATCH /api/user/me: nickname, email, avatar or password. */
export function updateMe(
  patch: UserUpdateSelf,
  options: Pick<RequestOptions, 'silent'> = {},
): Promise<UserRead> {
  return apiClient.patch<UserRead>(apiPaths.me, { body: patch, ...options });
}

/** `silent`: a failure is not reported as a toast (the caller says it itself). */
export function useUpdateMe(options: Pick<RequestOptions, 'silent'> = {}) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (patch: UserUpdateSelf) => updateMe(patch, options),
    onSuccess: (user) => client.setQueryData(queryKeys.me, user),
  });
}
