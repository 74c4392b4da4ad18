import { useMutation, useQueryClient } from '@tanstack/react-query';
import { apiPaths } from '../../../config/paths';
import { apiClient } from '../../../lib/api-client';
import { clearLocalSession } from '../../../lib/session';

/** POST /api/auth/logout; the local session is cleared even when the server call fails. */
export async function logout(): Promise<void> {
  await apiClient.post<null>(apiPaths.logout, { silent: true }).catch(() => undefined);
}

export function useLogout() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: logout,
    onSettled: () => clearLocalSession(client),
  });
}
