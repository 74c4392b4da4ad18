import { useMutation, useQueryClient } from '@tanstack/react-query';
import type { UserRead } from '@cc/contracts';
import { apiPaths } from '../../../config/paths';
import { apiClient } from '../../../lib/api-client';
import { queryKeys } from '../../../lib/query-keys';
import { getMe, setLoginFlag } from '../../../lib/session';

export interface LoginInput {
  username: string;
  password: string;
}

/** POST /api/auth/login as a form (SPEC §7), then loads the user. */
export async function login(input: LoginInput): Promise<UserRead> {
  const form = new FormData();
  form.set('username', input.username);
  form.set('password', input.password);
  await apiClient.post<null>(apiPaths.login, { body: form });
  setLoginFlag();
  return getMe({ noAuthDialog: true });
}

export function useLogin() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: login,
    onSuccess: (user) => {
      client.clear();
      client.setQueryData(queryKeys.me, user);
    },
  });
}
