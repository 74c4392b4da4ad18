import { useQuery } from '@tanstack/react-query';
import type { CredentialsRead } from '@cc/contracts';
import { adminApiPaths } from '../../../../config/admin-paths';
import { apiClient } from '../../../../lib/api-client';
import { adminKeys } from '../../shared/query-keys';

/** Which credentials are set: each reads as the mask or null, never the value. */
export function getCredentials(): Promise<CredentialsRead> {
  return apiClient.get<CredentialsRead>(adminApiPaths.credentials);
}

export function useCredentials() {
  return useQuery({ queryKey: adminKeys.credentials, queryFn: getCredentials, staleTime: 0 });
}
