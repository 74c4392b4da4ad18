import { useQuery } from '@tanstack/react-query';
import type { AuthOptions } from '@cc/contracts';
import { apiPaths } from '../../../config/paths';
import { apiClient } from '../../../lib/api-client';

/** What the login page offers besides the password (public); quiet when it fails: the password form stays. */
export function useAuthOptions() {
  return useQuery({
    queryKey: ['auth', 'options'],
    queryFn: () => apiClient.get<AuthOptions>(apiPaths.authOptions, { silent: true, noAuthDialog: true }),
    retry: false,
    staleTime: 60_000,
  });
}
